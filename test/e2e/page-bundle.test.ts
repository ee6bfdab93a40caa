import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// The inspector page as `npm run build` leaves it in dist/web (what the
// package ships and `sysprompt serve` serves).

const root = join(import.meta.dirname, '..', '..')
const web = join(root, 'dist', 'web')

describe('the built page', () => {
  it('ships index.html and the assets it names, all local', async () => {
    const html = await readFile(join(web, 'index.html'), 'utf8')
    const refs = [...html.matchAll(/\b(?:src|href)="([^"#]*)"/g)].map((m) => m[1]!)
    expect(refs.sort()).toEqual(['/assets/app.css', '/assets/app.js', 'data:,'])
    for (const ref of refs.filter((r) => r.startsWith('/'))) {
      expect(existsSync(join(web, ref)), ref).toBe(true)
    }
    expect(html).toMatch(/Content-Security-Policy" content="default-src 'self';/)
    expect(html).not.toMatch(/https?:\/\//)
  })

  it('is inside the package files', async () => {
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { files: string[] }
    expect(pkg.files).toContain('dist')
  })
})
