import { defineConfig } from 'vitest/config'

// The suite Stryker runs against each mutant (`npm run mutate`): the unit
// tests of the layers it mutates, without the stress tests and with property
// run counts capped (`SYSPROMPT_PROPERTY_RUNS`). Tests of the built package
// (`test/e2e`), the browser, the server and the stores cannot see a mutant of
// `src/` (they run `dist/` or nothing of these layers) and stay out.
export default defineConfig({
  test: {
    include: ['src/{shared,template,registry,compile,presets,node}/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/stress.test.ts'],
    setupFiles: ['test/setup/tokenizers.ts', 'test/setup/property-runs.ts'],
    env: { SYSPROMPT_PROPERTY_RUNS: '20' },
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
})
