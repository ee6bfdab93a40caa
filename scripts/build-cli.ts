/**
 * Bundles the `sysprompt` command (`src/cli/main.ts`) into `dist/bin/`:
 * one entry file plus chunks, each command and each heavy dependency a
 * chunk loaded only when a command needs it (`splitting`). One file to
 * read instead of some two hundred modules to resolve is most of what
 * `sysprompt --help` and a warm `inspect` spend. The library entries stay
 * tsc's output in `dist/`. Run by `npm run build`.
 *
 * External (loaded from node_modules at run time): gpt-tokenizer (its rank
 * tables are large and load through `createRequire` the first time a count
 * misses the caches) and the optional peers better-sqlite3 and pg.
 */
import { rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'dist', 'bin')

await rm(out, { recursive: true, force: true })
const result = await build({
  entryPoints: { sysprompt: join(root, 'src', 'cli', 'main.ts') },
  outdir: out,
  // Chunks beside the entry: the code that finds `package.json`, `presets/`
  // and `dist/web/` by `import.meta.url` sits one level under `dist/` either way.
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: ['node20'],
  external: ['gpt-tokenizer', 'gpt-tokenizer/*', 'better-sqlite3', 'pg'],
  // CommonJS dependencies (commander, yaml…) `require` Node's built-ins; an
  // ES module has no `require`, so each output file gets one.
  banner: {
    js: "import { createRequire as __syspromptCreateRequire } from 'node:module'; const require = __syspromptCreateRequire(import.meta.url);",
  },
  minify: true,
  keepNames: true,
  legalComments: 'none',
  sourcemap: false,
  metafile: true,
  logLevel: 'warning',
})
const outputs = Object.values(result.metafile.outputs)
const bytes = outputs.reduce((n, o) => n + o.bytes, 0)
console.log(`cli: ${outputs.length} files, ${bytes} bytes in dist/bin`)
