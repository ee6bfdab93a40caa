import { defineConfig } from 'vitest/config'

// The suite Stryker runs against each mutant (`npm run mutate`): the unit
// tests of the folder it mutates (`MUTATION_TESTS`, from
// `mutation/folders.json`), with property run counts capped
// (`SYSPROMPT_PROPERTY_RUNS`), without the stress tests and the tests that
// start processes (byte stability across processes, the agent-loop example):
// those take seconds per mutant. So a folder's score is what its own tests
// kill. Tests of the built package (`test/e2e`) run `dist/`, which holds no
// mutant.
export default defineConfig({
  test: {
    include: [`${process.env.MUTATION_TESTS ?? 'src'}/**/*.test.ts`],
    exclude: [
      '**/node_modules/**',
      '**/stress.test.ts',
      '**/byte-stability.test.ts',
      '**/agent-loop-example.test.ts',
    ],
    setupFiles: ['test/setup/tokenizers.ts', 'test/setup/property-runs.ts'],
    env: { SYSPROMPT_PROPERTY_RUNS: '20' },
    // Test files share one module graph within a run: per-file isolation cost
    // four fifths of each mutant's time (a survivor reruns every covering
    // file), and nothing is lost by it, since each of Stryker's runs (one
    // mutant, active throughout) still starts from fresh modules, and the
    // unit suites pass unisolated. `npm test` keeps isolation.
    isolate: false,
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
})
