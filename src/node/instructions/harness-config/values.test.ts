import { describe, expect, it } from 'vitest'
import { acceptedKeys, checkValue, type HarnessKey, keysOf, parseHarnessOverride } from './keys.js'

// Each kind of harness setting at its boundaries, as read from a
// configuration file (`checkValue`) and from `--harness-config` (the flag's
// text): the value kept, or the problem in words that never repeat it.

const spec = (key: string): HarnessKey => {
  for (const mode of ['codex', 'claude', 'gemini', 'opencode'] as const) {
    const found = keysOf(mode).find((k) => k.key === key)
    if (found !== undefined) return found
  }
  throw new Error(`no key ${key}`)
}
const bytes = spec('project_doc_max_bytes')
const names = spec('project_doc_fallback_filenames')
const paths = spec('instructions')
const format = spec('context.importFormat')
const approved = spec('hasClaudeMdExternalIncludesApproved')

describe('checkValue', () => {
  it('takes a byte count from 0 to 2^31 − 1, as a number or a TOML integer', () => {
    const problem = { problem: 'expected a whole number of bytes from 0 to 2147483647' }
    expect(checkValue(bytes, 0)).toBe(0)
    expect(checkValue(bytes, 2 ** 31 - 1)).toBe(2 ** 31 - 1)
    expect(checkValue(bytes, 2 ** 31)).toEqual(problem)
    expect(checkValue(bytes, -1)).toEqual(problem)
    expect(checkValue(bytes, 1.5)).toEqual(problem)
    expect(checkValue(bytes, '10')).toEqual(problem)
    expect(checkValue(bytes, 0n)).toBe(0)
    expect(checkValue(bytes, 2n ** 31n - 1n)).toBe(2 ** 31 - 1)
    expect(checkValue(bytes, 2n ** 31n)).toEqual(problem)
    expect(checkValue(bytes, -1n)).toEqual(problem)
  })

  it('takes a file name or up to 64 bare file names of at most 255 characters', () => {
    expect(checkValue(names, 'TEAM.md')).toEqual(['TEAM.md'])
    expect(checkValue(names, [])).toEqual([])
    const many = Array.from({ length: 64 }, (_, i) => `f${i}.md`)
    expect(checkValue(names, many)).toEqual(many)
    expect(checkValue(names, [...many, 'one-more.md'])).toEqual({ problem: 'expected at most 64 file names' })
    expect(checkValue(names, ['x'.repeat(255)])).toEqual(['x'.repeat(255)])
    const bare = { problem: 'expected bare file names (no `/`, `\\`, `..` or blanks)' }
    for (const bad of ['x'.repeat(256), '', '.', '..', 'a/b', 'a\\b', 'a\0b', ' a', 'a '])
      expect(checkValue(names, [bad]), JSON.stringify(bad)).toEqual(bare)
    expect(checkValue(names, ['...'])).toEqual(['...'])
    const list = { problem: 'expected a file name or a list of file names' }
    expect(checkValue(names, 3)).toEqual(list)
    expect(checkValue(names, ['a.md', 3])).toEqual(list)
  })

  it('takes up to 256 non-empty paths or globs of at most 4 096 characters', () => {
    expect(checkValue(paths, ['docs/*.md', '../shared.md'])).toEqual(['docs/*.md', '../shared.md'])
    const many = Array.from({ length: 256 }, (_, i) => `p${i}.md`)
    expect(checkValue(paths, many)).toEqual(many)
    expect(checkValue(paths, [...many, 'x'])).toEqual({ problem: 'expected at most 256 entries' })
    expect(checkValue(paths, ['x'.repeat(4096)])).toEqual(['x'.repeat(4096)])
    const empty = { problem: 'expected non-empty paths without NUL bytes' }
    for (const bad of ['x'.repeat(4097), '', 'a\0b']) expect(checkValue(paths, ['ok', bad])).toEqual(empty)
    const list = { problem: 'expected a list of paths or globs' }
    expect(checkValue(paths, 'docs/*.md')).toEqual(list)
    expect(checkValue(paths, ['a', null])).toEqual(list)
  })

  it('takes one of the words of an enum, and a boolean only as true or false', () => {
    expect(checkValue(format, 'flat')).toBe('flat')
    expect(checkValue(format, 'Flat')).toEqual({ problem: 'expected one of tree, flat' })
    expect(checkValue(format, 1)).toEqual({ problem: 'expected one of tree, flat' })
    expect(checkValue(approved, false)).toBe(false)
    expect(checkValue(approved, 'true')).toEqual({ problem: 'expected true or false' })
  })
})

describe('--harness-config values', () => {
  const value = (entry: string, mode: 'codex' | 'claude' | 'opencode') => parseHarnessOverride(entry, mode)

  it('reads a byte count only as plain decimal digits', () => {
    expect(value('project_doc_max_bytes=0', 'codex')).toEqual({
      ok: true,
      override: { key: 'project_doc_max_bytes', value: 0 },
    })
    const problem = {
      ok: false,
      error: '--harness-config project_doc_max_bytes: expected a whole number of bytes from 0 to 2147483647',
    }
    for (const bad of ['01', '1e3', '0x10', ' 1', '', '1234567890123456'.repeat(2)])
      expect(value(`project_doc_max_bytes=${bad}`, 'codex'), bad).toEqual(problem)
    // 16 digits read as a number, then refused as too large.
    expect(value('project_doc_max_bytes=1234567890123456', 'codex')).toEqual(problem)
  })

  it('reads a list comma-separated or as a JSON array, and nothing as an empty list', () => {
    expect(value('project_doc_fallback_filenames=', 'codex')).toMatchObject({ override: { value: [] } })
    expect(value('instructions=', 'opencode')).toMatchObject({ override: { value: [] } })
    expect(value('instructions=["a.md","b/*.md"]', 'opencode')).toMatchObject({
      override: { value: ['a.md', 'b/*.md'] },
    })
    // Not JSON after all: the text is one path, which a list key refuses as not a list.
    expect(value('instructions=[a.md', 'opencode')).toEqual({
      ok: false,
      error: '--harness-config instructions: expected a list of paths or globs',
    })
    expect(value('project_doc_fallback_filenames=../x', 'codex')).toEqual({
      ok: false,
      error:
        '--harness-config project_doc_fallback_filenames: expected bare file names (no `/`, `\\`, `..` or blanks)',
    })
  })

  it('reads a boolean only as true or false', () => {
    expect(value('hasClaudeMdExternalIncludesApproved=false', 'claude')).toMatchObject({
      override: { value: false },
    })
    expect(value('hasClaudeMdExternalIncludesApproved=yes', 'claude')).toEqual({
      ok: false,
      error: '--harness-config hasClaudeMdExternalIncludesApproved: expected true or false',
    })
  })

  it('needs a key before the =, and names the keys the mode accepts', () => {
    const usage =
      '--harness-config expects KEY=VALUE; codex mode accepts project_doc_max_bytes, project_doc_fallback_filenames'
    expect(value('=1', 'codex')).toEqual({ ok: false, error: usage })
    expect(value('noequals', 'codex')).toEqual({ ok: false, error: usage })
    // The first = splits: the value may hold more.
    expect(value('instructions=a=b.md', 'opencode')).toMatchObject({ override: { value: ['a=b.md'] } })
    expect(acceptedKeys('cursor')).toBe('cursor mode accepts no keys')
    expect(acceptedKeys('pi')).toBe('pi mode accepts trust, defaultProjectTrust')
    expect(acceptedKeys('opencode')).toBe('opencode mode accepts instructions')
  })
})
