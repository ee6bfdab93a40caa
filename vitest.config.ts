import { defineConfig } from 'vitest/config'

// Unit tests live beside the code (`src/**/*.test.ts`); `test/e2e` imports
// the built package, which `npm test` builds first.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/**/*.test.ts'],
    testTimeout: 30_000,
  },
})
