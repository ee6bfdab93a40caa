/**
 * Keeps `package.json` exports and the built files in agreement: every
 * export target exists in `dist/`, and every public entry point in `src/`
 * (`src/index.ts`, `src/<subpath>/index.ts` for the subpaths of SPEC §1) has
 * an export. Run after `npm run build`.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | Record<string, string>>
  bin?: Record<string, string>
}
const SUBPATHS = ['node', 'store', 'record', 'server']
const problems: string[] = []

for (const [subpath, target] of Object.entries(pkg.exports)) {
  const files = typeof target === 'string' ? [target] : Object.values(target)
  for (const file of files) {
    if (!existsSync(join(root, file)))
      problems.push(`export "${subpath}" points at ${file}, which the build did not produce`)
  }
}
for (const file of Object.values(pkg.bin ?? {})) {
  if (!existsSync(join(root, file))) problems.push(`bin ${file} was not built`)
}
const expected = [
  '.',
  ...SUBPATHS.filter((s) => existsSync(join(root, 'src', s, 'index.ts'))).map((s) => `./${s}`),
]
for (const subpath of expected) {
  if (!(subpath in pkg.exports))
    problems.push(`src has an entry point for "${subpath}" but package.json does not export it`)
}
for (const subpath of Object.keys(pkg.exports)) {
  if (subpath !== './package.json' && !expected.includes(subpath)) {
    problems.push(`package.json exports "${subpath}" but src has no entry point for it`)
  }
}

if (problems.length > 0) {
  for (const p of problems) console.error(`check-exports: ${p}`)
  process.exit(1)
}
console.log(`check-exports: ${Object.keys(pkg.exports).length} exports agree with dist/`)
