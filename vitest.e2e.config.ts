import { defineConfig } from 'vitest/config'

// End-to-end tests import the built package (`dist/`), never `src/`.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 60_000,
  },
})
