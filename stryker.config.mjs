// @ts-check
// Mutation testing, one folder per run: `npm run mutate` (all folders,
// smallest first) or `npm run mutate -- template compile`. Not in CI: a
// folder takes from minutes to an hour. Reports and the incremental state go
// to `reports/mutation/<folder>/` (not committed); equivalent mutants are
// listed in `mutation/EQUIVALENT.md`. A part of a folder (`npm run mutate --
// node-instructions --files a.ts,b.ts` or `--part name`, checked by
// scripts/mutate.ts) mutates only `MUTATE_FILES` and still runs the folder's
// tests; its report and state go to `reports/mutation/<folder>-<part>/`.
import { readFileSync } from 'node:fs'

/** Folder name → globs (`mutation/folders.json`, smallest first: the order `npm run mutate` takes). */
const FOLDERS = JSON.parse(readFileSync(new URL('./mutation/folders.json', import.meta.url), 'utf8'))

const name = process.env.MUTATE_FOLDER ?? 'template'
const folder = FOLDERS[name]
if (folder === undefined)
  throw new Error(`MUTATE_FOLDER=${name}: not one of ${Object.keys(FOLDERS).join(', ')}`)
// A part: the files scripts/mutate.ts checked belong to the folder.
const files = process.env.MUTATE_FILES?.split(',').filter((file) => file !== '')
const mutated = files ?? folder.mutate
const out =
  files === undefined ? `reports/mutation/${name}` : `reports/mutation/${name}-${process.env.MUTATE_PART}`
// Read by vitest.mutation.config.ts in the test runner processes: the
// folder's test directories and files, comma-separated.
process.env.MUTATION_TESTS = [folder.tests].flat().join(',')

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  // A static mutant (a module-level constant) reruns every related test: on a
  // shared 2-core machine one costs minutes, and they are a few percent of the
  // mutants. They are reported as ignored; run with --ignoreStatic false to
  // include them.
  ignoreStatic: true,
  mutate: [
    ...mutated,
    '!src/**/*.test.ts',
    '!src/**/*.test-helper.ts',
    '!src/**/*.generated.ts',
    ...(folder.exclude ?? []).map((glob) => `!${glob}`),
  ],
  // Only the mutated files get `// @ts-nocheck` (the default covers all of src/,
  // and a test compares the generated presets file with what the generator writes).
  disableTypeChecks: mutated.length === 1 ? mutated[0] : `{${mutated.join(',')}}`,
  incremental: true,
  incrementalFile: `${out}/incremental.json`,
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  htmlReporter: { fileName: `${out}/index.html` },
  jsonReporter: { fileName: `${out}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  ignorePatterns: ['dist', 'reports', 'test-results', 'coverage', '.sysprompt', 'web/node_modules'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  concurrency: 1,
  // 8 s beyond 1.5× the tests' own time: a mutant that loops costs that much, and on a
  // shared machine timeouts were a third of a run's time at 20 s.
  timeoutMS: 8_000,
  // The first run of the whole selection takes minutes on a busy machine.
  dryRunTimeoutMinutes: 40,
  thresholds: { high: 95, low: 90, break: null },
}
