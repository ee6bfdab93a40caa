import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { formatFragmentError } from '../shared/fragment.js'
import {
  BUILTIN_FRAGMENT_DIR,
  type FragmentReload,
  fragmentDirs,
  loadFragments,
  watchFragments,
} from './fragments.js'

let tmp: string

beforeEach(async () => {
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-fragments-')))
})

afterEach(async () => {
  await rm(tmp, { recursive: true, force: true })
})

async function put(path: string, content: string | Uint8Array): Promise<string> {
  const full = join(tmp, path)
  await mkdir(dirname(full), { recursive: true })
  await writeFile(full, content)
  return full
}

/** Polls until `check` holds; generous, because file watching is asynchronous. */
async function eventually(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

describe('loadFragments', () => {
  it('layers directories: a later one overrides an id, the others stay', async () => {
    await put('builtin/identity/default.md', 'built-in identity')
    await put('builtin/style.md', 'built-in style')
    await put('user/identity/default.md', 'user identity')
    await put('project/identity/default.md', '---\norder: -100\n---\nproject identity')
    await put('project/rules/tests.md', '---\npaths: ["**/*.test.ts"]\n---\nWrite tests.')
    const loaded = await loadFragments(['builtin', 'user', 'project'].map((d) => join(tmp, d)))
    expect(loaded.errors).toEqual([])
    expect(loaded.list.map((f) => f.id)).toEqual(['identity.default', 'rules.tests', 'style'])
    const identity = loaded.byId.get('identity.default')!
    expect(identity).toMatchObject({
      body: 'project identity',
      order: -100,
      source: join(tmp, 'project/identity/default.md'),
      relPath: 'identity/default.md',
    })
    expect(loaded.byId.get('style')!.body).toBe('built-in style')
    expect(loaded.byId.get('rules.tests')!.paths).toEqual(['**/*.test.ts'])
  })

  it('lets a front-matter id override a fragment stored under another path', async () => {
    await put('a/identity/default.md', 'default')
    await put('b/mine.md', '---\nid: identity.default\n---\nmine')
    const loaded = await loadFragments([join(tmp, 'a'), join(tmp, 'b')])
    expect(loaded.byId.get('identity.default')!.body).toBe('mine')
    expect(loaded.list).toHaveLength(1)
  })

  it('hashes the bytes of the file, BOM and CRLF included', async () => {
    const bytes = new TextEncoder().encode('\uFEFF---\r\nid: x\r\n---\r\nbody\r\n')
    await put('d/x.md', bytes)
    const loaded = await loadFragments([join(tmp, 'd')])
    const x = loaded.byId.get('x')!
    expect(x.contentHash).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`)
    expect(x.body).toBe('body\n')
  })

  it('reports a duplicate id in one directory, naming both files, and keeps the first', async () => {
    await put('d/a.md', '---\nid: same\n---\nfirst')
    const second = await put('d/b.md', '---\ndescription: x\nid: same\n---\nsecond')
    const loaded = await loadFragments([join(tmp, 'd')])
    expect(loaded.byId.get('same')!.body).toBe('first')
    expect(loaded.errors).toHaveLength(1)
    const e = loaded.errors[0]!
    expect(e).toMatchObject({ file: second, line: 3, column: 1, code: 'duplicate-id' })
    expect(e.message).toContain(join(tmp, 'd/a.md'))
  })

  it('reports broken YAML with file, line and column and loads the rest', async () => {
    const broken = await put('d/broken.md', '---\nid: b\norder: [1,\n---\nbody')
    await put('d/fine.md', 'fine')
    const loaded = await loadFragments([join(tmp, 'd')])
    expect(loaded.list.map((f) => f.id)).toEqual(['fine'])
    expect(loaded.errors).toHaveLength(1)
    const e = loaded.errors[0]!
    expect(e.file).toBe(broken)
    expect(e.line).toBeGreaterThanOrEqual(3)
    expect(e.column).toBeGreaterThanOrEqual(1)
    expect(formatFragmentError(e)).toMatch(
      new RegExp(`^${broken}:\\d+:\\d+: the front matter is not valid YAML`),
    )
  })

  it('reports tab-indented front matter and says to use spaces', async () => {
    const tabbed = await put('d/tabbed.md', '---\nmodels:\n\t- gpt-5\n---\nbody')
    const loaded = await loadFragments([join(tmp, 'd')])
    expect(loaded.errors).toEqual([
      expect.objectContaining({ file: tabbed, line: 3, column: 1, code: 'tab-indentation' }),
    ])
    expect(loaded.errors[0]!.message).toMatch(/spaces/)
  })

  it('treats missing directories as empty layers', async () => {
    await put('d/a.md', 'a')
    const loaded = await loadFragments([join(tmp, 'nope'), join(tmp, 'd'), join(tmp, 'also-missing')])
    expect(loaded.errors).toEqual([])
    expect(loaded.list.map((f) => f.id)).toEqual(['a'])
  })

  it('reports a fragment directory that is a file', async () => {
    const file = await put('not-a-dir', 'x')
    const loaded = await loadFragments([file])
    expect(loaded.errors).toEqual([expect.objectContaining({ file, line: 1, column: 1, code: 'unreadable' })])
  })

  it('reads *.md recursively and skips dot names and other files', async () => {
    await put('d/deep/er/x.md', 'x')
    await put('d/notes.txt', 'no')
    await put('d/.hidden.md', 'no')
    await put('d/.git/y.md', 'no')
    const loaded = await loadFragments([join(tmp, 'd')])
    expect(loaded.list.map((f) => [f.id, f.relPath])).toEqual([['deep.er.x', 'deep/er/x.md']])
  })

  it('refuses a symlink that leads out of the fragment directory', async () => {
    const secret = await put('outside/secret.md', 'secret')
    await mkdir(join(tmp, 'd'))
    await symlink(secret, join(tmp, 'd/leak.md'))
    const loaded = await loadFragments([join(tmp, 'd')])
    expect(loaded.list).toEqual([])
    expect(loaded.errors).toEqual([
      expect.objectContaining({ file: join(tmp, 'd/leak.md'), code: 'unreadable' }),
    ])
    expect(loaded.errors[0]!.message).not.toContain('secret')
  })

  it('refuses a file over the size limit', async () => {
    await put('d/big.md', 'x'.repeat(100))
    const loaded = await loadFragments([join(tmp, 'd')], { maxBytes: 10 })
    expect(loaded.errors[0]).toMatchObject({ code: 'unreadable', line: 1, column: 1 })
    expect(loaded.errors[0]!.message).toMatch(/larger than 10 bytes/)
  })
})

describe('fragmentDirs', () => {
  it('lists built-in, user and project layers, lowest first', () => {
    expect(fragmentDirs({ projectRoot: '/repo', env: { XDG_CONFIG_HOME: '/xdg' }, home: '/home/u' })).toEqual(
      [BUILTIN_FRAGMENT_DIR, '/xdg/sysprompt', '/repo/.sysprompt'],
    )
  })

  it('falls back to ~/.config when XDG_CONFIG_HOME is unset or relative', () => {
    const base = { projectRoot: '/repo', home: '/home/u', builtinDir: null }
    expect(fragmentDirs({ ...base, env: {} })).toEqual(['/home/u/.config/sysprompt', '/repo/.sysprompt'])
    expect(fragmentDirs({ ...base, env: { XDG_CONFIG_HOME: 'rel' } })[0]).toBe('/home/u/.config/sysprompt')
  })

  it('points the built-in layer at the package presets folder', () => {
    expect(BUILTIN_FRAGMENT_DIR.replace(/\\/g, '/')).toMatch(/\/presets\/?$/)
  })
})

describe('watchFragments', () => {
  it('reloads on an edit, keeps the last good table on a broken edit, and recovers', async () => {
    const dir = join(tmp, 'project')
    await put('project/identity.md', 'first')
    const reloads: FragmentReload[] = []
    const watcher = watchFragments([join(tmp, 'missing'), dir], (r) => reloads.push(r), { debounceMs: 50 })
    try {
      await watcher.ready

      await put('project/identity.md', 'second')
      await eventually(
        () => reloads.some((r) => r.fragments.byId.get('identity')?.body === 'second'),
        'the edit',
      )
      expect(reloads.at(-1)).toMatchObject({ kept: false, errors: [] })

      const broken = await put('project/identity.md', '---\norder: [\n---\nthird')
      await eventually(() => reloads.at(-1)?.kept === true, 'the broken edit')
      const keptReload = reloads.at(-1)!
      expect(keptReload.fragments.byId.get('identity')!.body).toBe('second')
      expect(keptReload.errors[0]).toMatchObject({ file: broken, code: 'yaml-syntax' })

      await put('project/identity.md', '---\norder: 3\n---\nfixed')
      await eventually(() => reloads.at(-1)?.kept === false, 'the fix')
      expect(reloads.at(-1)!.fragments.byId.get('identity')).toMatchObject({ body: 'fixed', order: 3 })
    } finally {
      await watcher.close()
    }
  })

  it('sees new files in new subdirectories and atomic saves', async () => {
    await put('d/a.md', 'a')
    const reloads: FragmentReload[] = []
    const watcher = watchFragments([join(tmp, 'd')], (r) => reloads.push(r), { debounceMs: 50 })
    try {
      await watcher.ready
      await put('d/sub/b.md', 'b')
      await eventually(() => reloads.at(-1)?.fragments.byId.has('sub.b') === true, 'the new file')
      // Editors often save by writing a temporary file and renaming it over the original.
      await put('d/a.md.tmp', 'a, saved atomically')
      await rename(join(tmp, 'd/a.md.tmp'), join(tmp, 'd/a.md'))
      await eventually(
        () => reloads.at(-1)?.fragments.byId.get('a')?.body === 'a, saved atomically',
        'the atomic save',
      )
    } finally {
      await watcher.close()
    }
  })

  it('notices a fragment directory created after the watch started', async () => {
    const reloads: FragmentReload[] = []
    const watcher = watchFragments([join(tmp, '.sysprompt')], (r) => reloads.push(r), { debounceMs: 50 })
    try {
      await watcher.ready
      await mkdir(join(tmp, '.sysprompt'))
      await put('.sysprompt/persona.md', 'hello')
      await eventually(() => reloads.at(-1)?.fragments.byId.has('persona') === true, 'the file in it')
    } finally {
      await watcher.close()
    }
  })

  it('follows a fragment directory that is removed and created again', async () => {
    await put('d/a.md', 'a')
    const reloads: FragmentReload[] = []
    const watcher = watchFragments([join(tmp, 'd')], (r) => reloads.push(r), { debounceMs: 50 })
    try {
      await watcher.ready
      await rm(join(tmp, 'd'), { recursive: true })
      await eventually(() => reloads.at(-1)?.fragments.list.length === 0, 'the removal')
      await put('d/b.md', 'b')
      await eventually(() => reloads.at(-1)?.fragments.byId.has('b') === true, 'the new directory')
      await put('d/b.md', 'b, edited')
      await eventually(() => reloads.at(-1)?.fragments.byId.get('b')?.body === 'b, edited', 'an edit in it')
    } finally {
      await watcher.close()
    }
  })

  it('debounces: the quiet time restarts on each change, and a burst gives one reload, of the last edit', async () => {
    await put('d/a.md', 'v0')
    const reloads: FragmentReload[] = []
    // The debounce timer on a fake clock: it fires only when the test moves
    // the clock, however long the writes and their events take to arrive.
    // Polling (`eventually`) keeps the real clock of node:timers/promises.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const resets = vi.spyOn(globalThis, 'clearTimeout')
    const watcher = watchFragments([join(tmp, 'd')], (r) => reloads.push(r), { debounceMs: 1000 })
    try {
      await watcher.ready
      await put('d/a.md', 'v1')
      await eventually(() => vi.getTimerCount() === 1, 'the first change')
      vi.advanceTimersByTime(999)
      expect(vi.getTimerCount()).toBe(1)
      // A change 999 ms into the quiet time starts it again.
      const before = resets.mock.calls.length
      for (let i = 2; i <= 5; i++) await put('d/a.md', `v${i}`)
      await put('d/b.md', 'b')
      await eventually(() => resets.mock.calls.length > before, 'a change during the quiet time')
      vi.advanceTimersByTime(999)
      expect(vi.getTimerCount()).toBe(1)
      expect(reloads).toEqual([])
      vi.advanceTimersByTime(1)
      await eventually(() => reloads.length > 0, 'the reload after the burst')
      // A later edit, once reported, proves no other reload came between (each edit has its own body).
      await put('d/a.md', 'after')
      await eventually(() => vi.getTimerCount() === 1, 'the later edit')
      vi.advanceTimersByTime(1000)
      await eventually(() => reloads.at(-1)?.fragments.byId.get('a')?.body === 'after', 'its reload')
      expect(reloads.map((r) => [r.fragments.byId.get('a')?.body, r.fragments.byId.has('b')])).toEqual([
        ['v5', true],
        ['after', true],
      ])
    } finally {
      vi.useRealTimers()
      resets.mockRestore()
      await watcher.close()
    }
  })

  it('reports nothing after close', async () => {
    await put('d/a.md', 'a')
    const reloads: FragmentReload[] = []
    const watcher = watchFragments([join(tmp, 'd')], (r) => reloads.push(r), { debounceMs: 10 })
    await watcher.ready
    await watcher.close()
    // A second watcher sees the edit: once it has reported, the closed one had its chance.
    const witness: FragmentReload[] = []
    const open = watchFragments([join(tmp, 'd')], (r) => witness.push(r), { debounceMs: 10 })
    try {
      await open.ready
      await put('d/a.md', 'changed')
      await eventually(() => witness.at(-1)?.fragments.byId.get('a')?.body === 'changed', 'the edit')
    } finally {
      await open.close()
    }
    expect(reloads).toEqual([])
  })

  it('uses the caller’s table as the last good one', async () => {
    await put('d/a.md', 'a')
    const initial = await loadFragments([join(tmp, 'd')])
    const reloads: FragmentReload[] = []
    const watcher = watchFragments([join(tmp, 'd')], (r) => reloads.push(r), { debounceMs: 20, initial })
    try {
      await watcher.ready
      await put('d/a.md', '---\nid: [\n---\n')
      await eventually(() => reloads.length > 0, 'the broken edit')
      expect(reloads[0]!.kept).toBe(true)
      expect(reloads[0]!.fragments.byId).toBe(initial.byId)
    } finally {
      await watcher.close()
    }
  })
})
