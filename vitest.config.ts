import { defineConfig } from 'vitest/config'

// Unit tests live beside the code (`src/**/*.test.ts`); `test/e2e` imports
// the built package, which `npm test` builds first.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/**/*.test.ts', 'scripts/**/*.test.ts'],
    setupFiles: ['test/setup/tokenizers.ts'],
    // Generous: a starved machine (one core shared with busy processes) must pass too.
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
})
