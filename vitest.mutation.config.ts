import { defineConfig } from 'vitest/config'

// The suite Stryker runs against each mutant (`npm run mutate`): the unit
// tests of the folder it mutates (`MUTATION_TESTS`, from
// `mutation/folders.json`: directories and test files, comma-separated; a
// folder may name a test outside it that tests it, as node-instructions names
// the harness recordings), with property run counts capped
// (`SYSPROMPT_PROPERTY_RUNS`), without the stress tests and the tests that
// start processes (byte stability across processes, the agent-loop example):
// those take seconds per mutant. So a folder's score is what its own tests
// kill. Tests of the built package (`test/e2e`) run `dist/`, which holds no
// mutant.
export default defineConfig({
  test: {
    include: (process.env.MUTATION_TESTS ?? 'src')
      .split(',')
      .map((tests) => (tests.endsWith('.test.ts') ? tests : `${tests}/**/*.test.ts`)),
    exclude: [
      '**/node_modules/**',
      '**/stress.test.ts',
      '**/byte-stability.test.ts',
      '**/agent-loop-example.test.ts',
    ],
    setupFiles: ['test/setup/tokenizers.ts', 'test/setup/property-runs.ts'],
    env: { SYSPROMPT_PROPERTY_RUNS: '20' },
    // Test files stay isolated (vitest's default). Unisolated runs were four
    // times faster but reported mutants as surviving that their covering
    // tests kill (`if (!IF_OPEN.test(source)) return -1` → `if (true)` in
    // tokenize-mustache.ts: 70 covering tests passed under Stryker, 63 of
    // them fail when the mutant is applied by hand), so a score from them is
    // not a measurement.
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
})
