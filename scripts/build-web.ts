/**
 * Bundles the inspector page (`web/`) into `dist/web/`: `index.html`,
 * `assets/app.js` and `assets/app.css`, everything the page loads, so the
 * served page makes no external request. Run by `npm run build`.
 */
import { copyFile, mkdir, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'dist', 'web')

await rm(out, { recursive: true, force: true })
await mkdir(join(out, 'assets'), { recursive: true })
const result = await build({
  entryPoints: { app: join(root, 'web', 'src', 'main.ts') },
  outdir: join(out, 'assets'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  minify: true,
  legalComments: 'linked',
  sourcemap: false,
  metafile: true,
  logLevel: 'warning',
})
await copyFile(join(root, 'web', 'index.html'), join(out, 'index.html'))
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0)
console.log(`web: ${Object.keys(result.metafile.outputs).length} files, ${bytes} bytes in dist/web/assets`)
