import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPageHandler } from './page.js'

let dir: string
let outside: string
const get = (path: string, init?: RequestInit) => new Request(`http://127.0.0.1:4319${path}`, init)

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sysprompt-page-'))
  outside = await mkdtemp(join(tmpdir(), 'sysprompt-outside-'))
  await writeFile(join(outside, 'secret.js'), 'secret')
  await mkdir(join(dir, 'assets', 'nested'), { recursive: true })
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>page</title>')
  await writeFile(join(dir, 'assets', 'app.js'), 'console.log(1)')
  await writeFile(join(dir, 'assets', 'app.css'), 'body{}')
  await writeFile(join(dir, 'assets', 'notes.md'), '# not a page file')
  await writeFile(join(dir, 'assets', 'nested', 'deep.js'), 'deep')
  await symlink(join(outside, 'secret.js'), join(dir, 'assets', 'link.js'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
  await rm(outside, { recursive: true, force: true })
})

describe('createPageHandler', () => {
  it('serves the page at / and its assets with their content types and safety headers', async () => {
    const page = createPageHandler({ dir })
    const index = await page(get('/'))
    expect(index?.status).toBe(200)
    expect(index?.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(index?.headers.get('x-content-type-options')).toBe('nosniff')
    expect(index?.headers.get('content-security-policy')).toContain("connect-src 'self'")
    expect(await index?.text()).toContain('<title>page</title>')
    const js = await page(get('/assets/app.js'))
    expect(js?.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await js?.text()).toBe('console.log(1)')
    expect((await page(get('/assets/app.css')))?.headers.get('content-type')).toBe('text/css; charset=utf-8')
  })

  it('leaves everything else to the router: other paths, other methods, listings, links, subdirectories, unknown types', async () => {
    const page = createPageHandler({ dir })
    for (const path of [
      '/api/template',
      '/assets/',
      '/assets',
      '/assets/link.js',
      '/assets/nested/deep.js',
      '/assets/nested',
      '/assets/notes.md',
      '/assets/..%2findex.html',
      '/assets/missing.js',
    ]) {
      expect(await page(get(path)), path).toBeUndefined()
    }
    expect(await page(get('/', { method: 'POST', body: 'x' }))).toBeUndefined()
    // URL parsing resolves encoded dot segments before the handler sees the path: still inside the bundle.
    expect(await (await page(get('/assets/%2e%2e/index.html')))?.text()).toContain('<title>page</title>')
    expect(await page(get('/assets/%2e%2e/%2e%2e/package.json'))).toBeUndefined()
  })

  it('answers HEAD without a body and a matching If-None-Match with 304', async () => {
    const page = createPageHandler({ dir })
    const head = await page(get('/assets/app.js', { method: 'HEAD' }))
    expect(head?.status).toBe(200)
    expect(head?.headers.get('content-length')).toBe(String('console.log(1)'.length))
    expect(await head?.text()).toBe('')
    const etag = head?.headers.get('etag')
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
    const again = await page(get('/assets/app.js', { headers: { 'if-none-match': etag! } }))
    expect(again?.status).toBe(304)
  })

  it('says what to run when the page is not built', async () => {
    const page = createPageHandler({ dir: join(dir, 'no-such-dir') })
    const res = await page(get('/'))
    expect(res?.status).toBe(503)
    expect(await res?.text()).toContain('npm run build')
    expect(await page(get('/assets/app.js'))).toBeUndefined()
  })

  it('never serves anything but a bundled file, whatever the path', async () => {
    const page = createPageHandler({ dir })
    const bodies = new Set(['<!doctype html><title>page</title>', 'console.log(1)', 'body{}'])
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc
            .array(fc.constantFrom('assets', '..', '%2e%2e', '.', 'nested', 'link.js', 'app.js', '%2f', ''), {
              maxLength: 5,
            })
            .map((parts) => parts.join('/')),
        ),
        async (tail) => {
          let request: Request
          try {
            request = get(`/${tail}`)
          } catch {
            return
          }
          const res = await page(request)
          if (res !== undefined) expect(bodies.has(await res.text())).toBe(true)
        },
      ),
      { numRuns: 300 },
    )
  })
})
