import { defineConfig } from 'vitest/config'

// The suite Stryker runs against each mutant (`npm run mutate`): the unit
// tests of the folder it mutates and of the layers next below it
// (`MUTATION_TESTS`, from `mutation/folders.json`), without the stress tests
// and with property run counts capped (`SYSPROMPT_PROPERTY_RUNS`). Tests of
// the built package (`test/e2e`) run `dist/`, which holds no mutant.
export default defineConfig({
  test: {
    include: [`${process.env.MUTATION_TESTS ?? 'src'}/**/*.test.ts`],
    exclude: ['**/node_modules/**', '**/stress.test.ts'],
    setupFiles: ['test/setup/tokenizers.ts', 'test/setup/property-runs.ts'],
    env: { SYSPROMPT_PROPERTY_RUNS: '20' },
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
})
