import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { INSTRUCTION_MODES } from '../discovery-options.js'
import { HARNESS_KEYS, keysOf, parseHarnessOverride } from './keys.js'

describe('parseHarnessOverride', () => {
  it('parses each kind under the harness key names', () => {
    expect(parseHarnessOverride('project_doc_max_bytes=65536', 'codex')).toEqual({
      ok: true,
      override: { key: 'project_doc_max_bytes', value: 65536 },
    })
    expect(parseHarnessOverride('project_doc_fallback_filenames=TEAM.md,CLAUDE.md', 'codex')).toMatchObject({
      override: { value: ['TEAM.md', 'CLAUDE.md'] },
    })
    expect(parseHarnessOverride('context.fileName=["AGENTS.md"]', 'gemini')).toMatchObject({
      override: { value: ['AGENTS.md'] },
    })
    expect(parseHarnessOverride('hasClaudeMdExternalIncludesApproved=true', 'claude')).toMatchObject({
      override: { value: true },
    })
    expect(parseHarnessOverride('instructions=docs/*.md', 'opencode')).toMatchObject({
      override: { value: ['docs/*.md'] },
    })
  })

  it('says which keys the mode accepts for an unknown key, and what a key wants for a bad value', () => {
    expect(parseHarnessOverride('context.fileName=A.md', 'codex')).toEqual({
      ok: false,
      error:
        '--harness-config: unknown key "context.fileName"; codex mode accepts project_doc_max_bytes, project_doc_fallback_filenames',
    })
    expect(parseHarnessOverride('x=1', 'cursor')).toMatchObject({
      error: expect.stringContaining('cursor mode accepts no keys'),
    })
    expect(parseHarnessOverride('trust=maybe', 'pi')).toMatchObject({
      error: '--harness-config trust: expected one of yes, no',
    })
    expect(parseHarnessOverride('project_doc_max_bytes=-1', 'codex')).toMatchObject({
      error: '--harness-config project_doc_max_bytes: expected a whole number of bytes from 0 to 2147483647',
    })
    expect(parseHarnessOverride('project_doc_fallback_filenames=../x', 'codex')).toMatchObject({ ok: false })
    expect(parseHarnessOverride('instructionFiles=always', 'claude')).toMatchObject({
      error: expect.stringContaining('expected one of claude-md, claude-md-or-agents-md'),
    })
    expect(parseHarnessOverride('noequals', 'codex')).toMatchObject({ ok: false })
  })

  it('never throws, and an accepted override always has a known key and a value of its kind (property)', () => {
    const keys = Object.values(HARNESS_KEYS).flatMap((list) => (list ?? []).map((k) => k.key))
    const entry = fc.oneof(
      fc.string(),
      fc.tuple(fc.constantFrom(...keys, 'unknown'), fc.string()).map(([k, v]) => `${k}=${v}`),
      fc
        .tuple(fc.constantFrom(...keys), fc.array(fc.string(), { maxLength: 4 }))
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`),
      fc.tuple(fc.constantFrom(...keys), fc.nat()).map(([k, v]) => `${k}=${v}`),
    )
    fc.assert(
      fc.property(entry, fc.constantFrom(...INSTRUCTION_MODES), (text, mode) => {
        const parsed = parseHarnessOverride(text, mode)
        if (!parsed.ok) {
          expect(parsed.error).not.toContain('\n')
          expect(parsed.error.startsWith('--harness-config')).toBe(true)
          return
        }
        const spec = keysOf(mode).find((k) => k.key === parsed.override.key)!
        expect(text.startsWith(`${spec.key}=`)).toBe(true)
        const value = parsed.override.value
        if (spec.kind === 'bytes') expect(Number.isSafeInteger(value)).toBe(true)
        if (spec.kind === 'boolean') expect(typeof value).toBe('boolean')
        if (spec.kind === 'enum') expect(spec.values).toContain(value)
        if (spec.kind === 'file-names' || spec.kind === 'paths') {
          expect(Array.isArray(value)).toBe(true)
          if (spec.kind === 'file-names') for (const n of value as string[]) expect(n).not.toMatch(/[/\\]/)
        }
      }),
      { numRuns: 500 },
    )
  })
})
