import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { bodyKeeper } from './bodies.js'

const made: string[] = []
afterAll(() => Promise.all(made.map((d) => rm(d, { recursive: true, force: true }))))

const HASH = `sha256:${'ab'.repeat(32)}`

describe('--keep-bodies files', () => {
  it('one private file per message hash, written once; the directory private', async () => {
    const base = await mkdtemp(join(tmpdir(), 'sysprompt-bodies-'))
    made.push(base)
    const dir = join(base, 'bodies')
    const keep = await bodyKeeper(dir)
    await keep(HASH, '{"role":"user","content":"hello"}')
    await keep(HASH, '{"role":"user","content":"another text, same hash: not written again"}')
    expect(await readdir(dir)).toEqual([`${'ab'.repeat(32)}.json`])
    expect(await readFile(join(dir, `${'ab'.repeat(32)}.json`), 'utf8')).toBe(
      '{"role":"user","content":"hello"}',
    )
    if (process.platform !== 'win32') {
      expect((await stat(dir)).mode & 0o777).toBe(0o700)
      expect((await stat(join(dir, `${'ab'.repeat(32)}.json`))).mode & 0o777).toBe(0o600)
    }
    // A second keeper (a later run) sees the file and leaves it.
    await (await bodyKeeper(dir))(HASH, 'changed')
    expect(await readFile(join(dir, `${'ab'.repeat(32)}.json`), 'utf8')).toContain('hello')
  })

  it('a name that is not a content hash is never a file name', async () => {
    const base = await mkdtemp(join(tmpdir(), 'sysprompt-bodies-'))
    made.push(base)
    const keep = await bodyKeeper(join(base, 'bodies'))
    await keep('sha256:../../escape', 'x')
    await keep('not-a-hash', 'x')
    expect(await readdir(join(base, 'bodies'))).toEqual([])
  })
})
