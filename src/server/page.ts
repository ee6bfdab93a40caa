/**
 * Serves the inspector page (the bundle `npm run build` writes to
 * `dist/web/`) at `/` and `/assets/*`, as a plain `Request → Response`
 * handler that any router can mount.
 *
 * Confinement is by construction: the bundle directory is listed once, its
 * regular files (no links, no subdirectories) are read into memory, and a
 * request can only name one of those entries, so nothing a client sends
 * reaches the file system. The bundle is the package's own build output,
 * not repository input, which is why it is read here rather than through
 * the confined reader for repository files.
 */
import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Content types of what the bundle holds; a file of any other kind is not served. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}

/** The page's own requests stay on this origin (CodeMirror injects style elements, hence inline styles). */
const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

interface PageFile {
  body: Uint8Array<ArrayBuffer>
  type: string
  etag: string
}

/** Options of {@link createPageHandler}. */
export interface PageOptions {
  /** The bundle directory; defaults to the `web/` directory beside the built server (`dist/web/`). */
  dir?: string
}

/** Where the built page lives relative to this module once built (`dist/server/page.js` → `dist/web/`). */
export const DEFAULT_PAGE_DIR = fileURLToPath(new URL('../web/', import.meta.url))

async function regularFiles(dir: string, prefix: string, into: Map<string, PageFile>): Promise<void> {
  let entries: import('node:fs').Dirent[]
  try {
    entries = await readdir(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const entry of entries) {
    const type = TYPES[extname(entry.name)]
    // Dirent types come from lstat: a symbolic link is neither a file nor followed.
    if (!entry.isFile() || type === undefined) continue
    // Safe as a plain read: the package's own built bundle, listed without following links; never a repository's file.
    const body = new Uint8Array(await readFile(join(dir, entry.name)))
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`
    into.set(`${prefix}${entry.name}`, { body, type, etag })
  }
}

async function loadBundle(dir: string): Promise<Map<string, PageFile>> {
  const files = new Map<string, PageFile>()
  await regularFiles(dir, '/', files)
  await regularFiles(join(dir, 'assets'), '/assets/', files)
  const index = files.get('/index.html')
  if (index) files.set('/', index)
  return files
}

function headers(file: PageFile): Headers {
  return new Headers({
    'content-type': file.type,
    etag: file.etag,
    // Asset names carry no hash, so the browser revalidates (a cheap 304) rather than keeping a stale page.
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-security-policy': CSP,
  })
}

/**
 * A handler for the page: a `Response` for `GET`/`HEAD` of `/`,
 * `/index.html` or a bundled asset, `undefined` for anything else (so the
 * router goes on to its API routes or its 404). When the bundle is missing
 * (running from source without a build), `/` answers 503 saying what to run.
 */
export function createPageHandler(
  options: PageOptions = {},
): (request: Request) => Promise<Response | undefined> {
  const dir = options.dir ?? DEFAULT_PAGE_DIR
  let bundle: Promise<Map<string, PageFile>> | undefined
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined
    const path = new URL(request.url).pathname
    if (path !== '/' && path !== '/index.html' && !path.startsWith('/assets/')) return undefined
    bundle ??= loadBundle(dir)
    const files = await bundle
    const file = files.get(path)
    if (file === undefined) {
      if (path === '/' && files.size === 0) {
        return new Response('The inspector page is not built: run `npm run build`.\n', {
          status: 503,
          headers: { 'content-type': 'text/plain; charset=utf-8' },
        })
      }
      return undefined
    }
    const h = headers(file)
    if (request.headers.get('if-none-match') === file.etag)
      return new Response(null, { status: 304, headers: h })
    h.set('content-length', String(file.body.byteLength))
    return new Response(request.method === 'HEAD' ? null : file.body, { status: 200, headers: h })
  }
}
