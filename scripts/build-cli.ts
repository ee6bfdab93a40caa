/**
 * Bundles the `sysprompt` command into `dist/bin/` with esbuild:
 *
 * - `cli.cjs`: everything the command line runs (`src/cli/run.ts` and what
 *   it imports), one CommonJS file, so that the launcher can compile it
 *   through V8's code cache, which it keys and checks itself
 *   (`src/node/code-cache.ts`). Commands and heavy dependencies still initialise only when
 *   used: esbuild keeps each `import()` a lazily run module.
 * - `sysprompt.cjs`: the launcher (`src/cli/launch.ts`), the package's bin,
 *   with the root texts (`--help`, `--version`) that commander renders here
 *   from the built `cli.cjs` (`renderRootAnswers`), so that the launcher
 *   prints them without loading `cli.cjs` or commander.
 *
 * One file instead of some two hundred modules to resolve, compiled from
 * the cache, is most of what `sysprompt --help` and a warm `inspect` save.
 * The library entries stay tsc's output in `dist/`. Run by `npm run build`.
 *
 * External (loaded from node_modules at run time): gpt-tokenizer (its rank
 * tables are large, load through `createRequire` the first time a count
 * misses the caches, and have their own code cache), jsonc-parser (its
 * UMD entry requires its own files by computed paths, which a bundle cannot
 * follow; loaded only when a harness config file exists) and the optional
 * peers better-sqlite3 and pg.
 */
import { createHash } from 'node:crypto'
import { readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BuildOptions, build, type Plugin } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'dist', 'bin')

const common: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: ['node22.19'],
  external: [
    'gpt-tokenizer',
    'gpt-tokenizer/*',
    'jsonc-parser',
    'better-sqlite3',
    'pg',
    // The recorder's HTTP and WebSocket clients load from node_modules when `record` runs, not in every command's bundle.
    'undici',
    'ws',
  ],
  minify: true,
  // Error classes keep their names (`name`, stack traces, messages that print them).
  keepNames: true,
  legalComments: 'none',
  sourcemap: false,
  metafile: true,
  logLevel: 'warning',
}

/**
 * `src/node/require-yaml.ts` requires `yaml` through `createRequire`, which
 * esbuild cannot follow: in the bundle it becomes a plain `require('yaml')`
 * inside the function, which esbuild bundles as a module that runs on the
 * first call (a file with front matter), compiled with the rest.
 */
const bundledYaml: Plugin = {
  name: 'bundled-yaml',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]node[\\/]require-yaml\.ts$/ }, () => ({
      contents: "export function requireYaml() { return require('yaml') }",
      loader: 'ts',
      resolveDir: join(root, 'src', 'node'),
    }))
  },
}

/**
 * Commander requires `node:child_process` (which loads `net` and `dgram`)
 * at its top, for executable subcommands, which sysprompt has none of: in
 * the bundle it is required on the first spawn instead.
 */
const lazyChildProcess: Plugin = {
  name: 'commander-lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8')
      const eager = "const childProcess = require('node:child_process');"
      if (!source.includes(eager))
        throw new Error(`${args.path}: no \`${eager}\` to make lazy (commander changed)`)
      const lazy = "const childProcess = { get spawn() { return require('node:child_process').spawn; } };"
      return { contents: source.replace(eager, lazy), loader: 'js' }
    })
  },
}

// `import.meta.url` in CommonJS: the file's own URL.
const cliBanner = { js: "const __syspromptModuleUrl = require('node:url').pathToFileURL(__filename).href;" }

await rm(out, { recursive: true, force: true })
const cli = await build({
  ...common,
  entryPoints: [join(root, 'src', 'cli', 'run.ts')],
  outfile: join(out, 'cli.cjs'),
  format: 'cjs',
  // The code that finds `package.json`, `presets/` and `dist/web/` by its
  // own URL: one level under `dist/`, as tsc's output is.
  define: { 'import.meta.url': '__syspromptModuleUrl' },
  banner: cliBanner,
  plugins: [bundledYaml, lazyChildProcess],
})
// The launcher knows the bundle's hash, so a start-up need not hash it to validate its code cache.
const cliHash = createHash('sha256')
  .update(await readFile(join(out, 'cli.cjs'), 'utf8'))
  .digest('hex')
// The root texts, as the bundle just built prints them.
const { renderRootAnswers } = createRequire(import.meta.url)(join(out, 'cli.cjs')) as {
  renderRootAnswers: () => Promise<unknown>
}
const rootAnswers = await renderRootAnswers()
const packageJson = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string }
}
const launcher = await build({
  ...common,
  entryPoints: [join(root, 'src', 'cli', 'launch.ts')],
  outfile: join(out, 'sysprompt.cjs'),
  // CommonJS: Node starts a CommonJS entry sooner than an ES module one.
  format: 'cjs',
  // The launcher checks the Node version before anything else loads, so it
  // must parse on the releases it refuses.
  target: ['node16'],
  define: {
    CLI_SHA256: JSON.stringify(cliHash),
    ROOT_ANSWERS: JSON.stringify(rootAnswers),
    NODE_MINIMUM: JSON.stringify(packageJson.engines.node),
    'import.meta.url': '__syspromptModuleUrl',
  },
  banner: cliBanner,
})
const outputs = [cli, launcher].flatMap((r) => Object.values(r.metafile?.outputs ?? {}))
const bytes = outputs.reduce((n, o) => n + o.bytes, 0)
console.log(`cli: ${outputs.length} files, ${bytes} bytes in dist/bin`)
