import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ToolSchema } from '../registry/types.js'
import { type FixtureSection, promptOf } from './fixtures.test-helper.js'
import {
  checkLock,
  createLock,
  formatLock,
  type LockEntry,
  LockError,
  type PromptLock,
  parseLock,
  withLockEntry,
} from './index.js'

/** A version 2 lock holding `entry` as sysprompt's own. */
const fileOf = (entry: LockEntry): PromptLock => ({ version: 2, entries: { sysprompt: entry } })

const read: ToolSchema = { name: 'read', description: 'Read a file', parameters: { type: 'object' } }
const bash: ToolSchema = { name: 'bash', parameters: { type: 'object' } }

const base: FixtureSection[] = [
  { name: 'identity', text: 'You are a coding agent.', order: -100 },
  { name: 'guidance', text: 'Use the tools.', order: 100 },
  { name: 'project', text: 'Project notes.', order: 200, stability: 'session' },
]

const golden = () => createLock(promptOf(base, { tools: [read, bash] }))

describe('createLock and formatLock', () => {
  it('records the whole hash, tokens, tokenizer, tools and each section', () => {
    const compiled = promptOf(base, { tools: [read, bash] })
    const lock = createLock(compiled, { identity: 'presets/identity.md' })
    expect(lock).toEqual({
      hash: compiled.hash,
      tokens: compiled.tokens,
      tokenizer: 'estimate',
      toolsHash: compiled.toolsHash,
      tools: compiled.tools.map((t) => ({ name: t.name, hash: t.hash })),
      sections: compiled.sections.map((s) => ({
        name: s.name,
        order: s.order,
        hash: s.hash,
        tokens: s.tokens,
        ...(s.name === 'identity' ? { source: 'presets/identity.md' } : {}),
      })),
    })
  })

  it('takes a source from the manifest entry named like the section unless one is passed', () => {
    const manifest = [{ id: 'guidance', source: '/p/guidance.md', contentHash: 'sha256:x', dynamic: false }]
    const compiled = promptOf(base, { manifest })
    expect(createLock(compiled).sections[1]!.source).toBe('/p/guidance.md')
    expect(createLock(compiled, { guidance: 'module:x' }).sections[1]!.source).toBe('module:x')
  })

  it('formats with a fixed key order, sysprompt first, one entry per line and a trailing newline', () => {
    const entry: LockEntry = {
      hash: 'sha256:aa',
      tokens: 12,
      tokenizer: 'o200k',
      toolsHash: 'sha256:tt',
      view: { hash: 'sha256:v', tokens: 3, files: ['AGENTS.md'] },
      tools: [{ name: 'read', hash: 'sha256:r' }],
      sections: [
        { name: 'a', order: -100, hash: 'sha256:1', tokens: 5, source: 'presets/a.md' },
        { name: 'b "quoted"', order: 0, hash: 'sha256:2', tokens: 6 },
      ],
    }
    const lock = withLockEntry(
      withLockEntry(undefined, 'codex@0.1.0', { ...entry, tools: [], sections: [] }),
      'sysprompt',
      entry,
    )
    expect(formatLock(lock)).toBe(
      [
        '{',
        '  "version": 2,',
        '  "entries": {',
        '    "sysprompt": {',
        '      "hash": "sha256:aa",',
        '      "tokens": 12,',
        '      "tokenizer": "o200k",',
        '      "toolsHash": "sha256:tt",',
        '      "view": { "hash": "sha256:v", "tokens": 3, "files": ["AGENTS.md"] },',
        '      "tools": [',
        '        { "name": "read", "hash": "sha256:r" }',
        '      ],',
        '      "sections": [',
        '        { "name": "a", "order": -100, "hash": "sha256:1", "tokens": 5, "source": "presets/a.md" },',
        '        { "name": "b \\"quoted\\"", "order": 0, "hash": "sha256:2", "tokens": 6 }',
        '      ]',
        '    },',
        '    "codex@0.1.0": {',
        '      "hash": "sha256:aa",',
        '      "tokens": 12,',
        '      "tokenizer": "o200k",',
        '      "toolsHash": "sha256:tt",',
        '      "view": { "hash": "sha256:v", "tokens": 3, "files": ["AGENTS.md"] },',
        '      "tools": [],',
        '      "sections": []',
        '    }',
        '  }',
        '}',
        '',
      ].join('\n'),
    )
  })

  it('writes empty lists as []', () => {
    const text = formatLock(fileOf(createLock(promptOf([]))))
    expect(text).toContain('"tools": [],\n')
    expect(text).toContain('"sections": []\n    }')
  })

  it('round-trips through parseLock, byte for byte', () => {
    const text = formatLock(fileOf(createLock(promptOf(base, { tools: [read] }), { project: 'AGENTS.md' })))
    expect(formatLock(parseLock(text))).toBe(text)
  })

  it('round-trips any lock: serialize, parse, the same entries', () => {
    const name = fc.string({ unit: 'grapheme', maxLength: 12 })
    const hash = fc.stringMatching(/^sha256:[0-9a-f]{8}$/)
    const entry = fc.record(
      {
        hash,
        tokens: fc.nat(),
        tokenizer: fc.constantFrom('o200k', 'cl100k', 'estimate'),
        toolsHash: hash,
        cwd: fc.constantFrom('.', 'packages/api', 'a b/c'),
        pinned: fc.array(name, { maxLength: 3 }),
        view: fc.record({ hash, tokens: fc.nat(), files: fc.array(name, { maxLength: 3 }) }),
        tools: fc.array(fc.record({ name, hash })),
        sections: fc.uniqueArray(
          fc.record(
            { name, order: fc.integer({ min: -1000, max: 1000 }), hash, tokens: fc.nat(), source: name },
            { requiredKeys: ['name', 'order', 'hash', 'tokens'] },
          ),
          { selector: (s) => s.name },
        ),
      },
      { requiredKeys: ['hash', 'tokens', 'tokenizer', 'toolsHash', 'tools', 'sections'] },
    )
    const key = fc.oneof(
      fc.constant('sysprompt'),
      fc.constantFrom('codex', 'claude', 'copilot', 'kiro'),
      fc
        .tuple(fc.constantFrom('claude', 'codex', 'opencode'), fc.nat(999), fc.nat(999), fc.nat(999))
        .map(([m, a, b, c]) => `${m}@${a}.${b}.${c}`),
    )
    const lock = fc
      .dictionary(key, entry, { maxKeys: 4 })
      .map((entries): PromptLock => ({ version: 2, entries }))
    fc.assert(
      fc.property(lock, (l) => {
        const text = formatLock(l)
        expect(parseLock(text)).toEqual(l)
        expect(formatLock(parseLock(text))).toBe(text)
      }),
    )
  })

  it('never fails on arbitrary text with anything but a LockError', () => {
    const text = fc.oneof(
      fc.string(),
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify({ version: 2, entries: v })),
      fc
        .dictionary(fc.string({ maxLength: 20 }), fc.jsonValue())
        .map((e) => JSON.stringify({ version: 2, entries: e })),
      fc.jsonValue().map((v) => JSON.stringify({ version: 2, entries: { sysprompt: v } })),
    )
    fc.assert(
      fc.property(text, (t) => {
        try {
          parseLock(t)
        } catch (error) {
          expect(error).toBeInstanceOf(LockError)
        }
      }),
    )
  })
})

describe('parseLock errors', () => {
  // A version 1 lock: its fields at the top level.
  const valid = () => ({ version: 1, ...JSON.parse(formatLock(fileOf(golden()))).entries.sysprompt })
  const failure = (text: string) => {
    try {
      parseLock(text)
    } catch (error) {
      return error as LockError
    }
    throw new Error('parseLock accepted it')
  }

  it('reports text that is not JSON as invalid-json, suggesting the update command', () => {
    const error = failure('{ "version": 1,')
    expect(error).toBeInstanceOf(LockError)
    expect(error.code).toBe('invalid-json')
    expect(error.message).toContain('sysprompt check --update')
  })

  it('reports a wrong shape as invalid-shape naming the field', () => {
    const lock = valid()
    lock.sections[1].hash = 42
    const error = failure(JSON.stringify(lock))
    expect(error.code).toBe('invalid-shape')
    expect(error.path).toBe('sections[1].hash')
    expect(error.message).toContain('sections[1].hash must be a string')
  })

  it.each([
    ['[]', 'the top level'],
    [
      '{"version":1,"hash":"h","tokens":-1,"tokenizer":"t","toolsHash":"x","tools":[],"sections":[]}',
      'tokens',
    ],
    ['{"version":1,"hash":"h","tokens":1,"tokenizer":"t","toolsHash":"x","sections":[]}', 'tools'],
    [
      '{"version":1,"hash":"h","tokens":1,"tokenizer":"t","toolsHash":"x","tools":[1],"sections":[]}',
      'tools[0]',
    ],
  ])('rejects %s at %s', (text, path) => {
    const error = failure(text)
    expect(error.code).toBe('invalid-shape')
    expect(error.path).toBe(path)
  })

  it('rejects a section name that appears twice', () => {
    const lock = valid()
    lock.sections[1].name = lock.sections[0].name
    expect(failure(JSON.stringify(lock)).code).toBe('invalid-shape')
  })

  it('reports another version as unsupported-version', () => {
    const lock = valid()
    lock.version = 3
    expect(failure(JSON.stringify(lock)).code).toBe('unsupported-version')
  })
})

describe('checkLock', () => {
  const check = (sections: FixtureSection[], toolList: ToolSchema[] = [read, bash], lock = golden()) =>
    checkLock(promptOf(sections, { tools: toolList }), lock)

  it('is ok when nothing changed', () => {
    expect(check(base)).toEqual({ ok: true, differences: [] })
  })

  it('explains an added section', () => {
    const result = check([...base, { name: 'memory', text: 'Remember.', order: 300 }])
    expect(result.ok).toBe(false)
    expect(result.differences).toEqual([
      { section: 'memory', kind: 'added', message: expect.stringContaining('"memory"') },
    ])
    expect(result.differences[0]!.message).toContain('sysprompt check --update')
  })

  it('explains a removed section with its source', () => {
    const lock = createLock(promptOf(base, { tools: [read, bash] }), { guidance: 'presets/guidance.md' })
    const result = check([base[0]!, base[2]!], [read, bash], lock)
    expect(result.differences).toEqual([
      { section: 'guidance', kind: 'removed', message: expect.stringContaining('presets/guidance.md') },
    ])
  })

  it('explains a changed section with its token change', () => {
    const result = check([base[0]!, { ...base[1]!, text: 'Use the tools, carefully and well.' }, base[2]!])
    expect(result.differences).toHaveLength(1)
    expect(result.differences[0]).toMatchObject({ section: 'guidance', kind: 'changed' })
    expect(result.differences[0]!.message).toMatch(/4 → 9 tokens \(\+5\)/)
  })

  it('explains a section moved out of its relative order', () => {
    const result = check([{ ...base[2]!, order: 50 }, base[0]!, base[1]!])
    expect(result.differences).toEqual([
      {
        section: 'project',
        kind: 'moved',
        message: expect.stringContaining('position 3 → 1, order 200 → 50'),
      },
    ])
  })

  it('explains a new order number even when the position is unchanged', () => {
    const result = check([base[0]!, { ...base[1]!, order: 150 }, base[2]!])
    expect(result.differences).toEqual([
      {
        section: 'guidance',
        kind: 'moved',
        message: expect.stringContaining('position 2 (unchanged), order 100 → 150'),
      },
    ])
  })

  it('explains tool additions, removals, changes and reordering', () => {
    const grep: ToolSchema = { name: 'grep', parameters: { type: 'object' } }
    expect(check(base, [read, bash, grep]).differences).toEqual([
      { kind: 'tools', message: expect.stringContaining('tool "grep" is new') },
    ])
    expect(check(base, [read]).differences).toEqual([
      { kind: 'tools', message: expect.stringContaining('tool "bash" is gone') },
    ])
    expect(check(base, [{ ...read, description: 'Read' }, bash]).differences).toEqual([
      { kind: 'tools', message: expect.stringContaining('tool "read" changed') },
    ])
    expect(check(base, [bash, read]).differences).toEqual([
      { kind: 'tools', message: expect.stringContaining('read, bash → bash, read') },
    ])
  })

  it('explains sections of equal order that swapped places', () => {
    const lock = createLock(
      promptOf([
        { name: 'a', text: 'a', order: 1 },
        { name: 'b', text: 'b', order: 1 },
        { name: 'c', text: 'c', order: 2 },
      ]),
    )
    const compiled = promptOf([
      { name: 'b', text: 'b', order: 1 },
      { name: 'a', text: 'a', order: 1 },
      { name: 'c', text: 'c', order: 2 },
    ])
    expect(checkLock(compiled, lock).differences).toEqual([
      {
        section: 'b',
        kind: 'moved',
        message: expect.stringContaining('position 2 → 1, order 1 (unchanged)'),
      },
    ])
  })

  it('explains a lock counted with another tokenizer', () => {
    const result = checkLock(promptOf(base, { tools: [read, bash], tokenizer: 'o200k' }), golden())
    expect(result.ok).toBe(false)
    expect(result.differences.map((d) => d.kind)).toContain('changed')
    expect(result.differences.at(-1)!.message).toContain('--tokenizer estimate')
  })

  it('explains a whole-hash change that no section accounts for', () => {
    const lock = { ...golden(), hash: 'sha256:0000' }
    const result = check(base, [read, bash], lock)
    expect(result.differences).toEqual([{ kind: 'changed', message: expect.stringContaining('sha256:0000') }])
  })

  it('explains every difference at once, each suggesting the update command', () => {
    const result = check(
      [{ ...base[2]!, order: 50, text: 'Other notes.' }, base[0]!, { name: 'memory', text: 'm', order: 300 }],
      [bash],
    )
    expect(result.differences.map((d) => `${d.kind}:${d.section ?? ''}`)).toEqual([
      'changed:project',
      'moved:project',
      'added:memory',
      'removed:guidance',
      'tools:',
    ])
    for (const d of result.differences) expect(d.message).toContain('sysprompt check --update')
  })
})

describe('portable lock fields', () => {
  it('round-trips cwd, pinned keys and per-section files, and refuses a cwd that leaves the root', async () => {
    const { compile } = await import('./compile.js')
    const compiled = compile(
      {
        sections: [
          { name: 'docs', order: 0, text: 'Read:\n[file:A.md]', dialect: 'bracket', stability: 'session' },
        ],
        tools: [],
        variables: { 'file:A.md': 'one\ntwo' },
        stability: {},
      },
      { tokenizer: 'estimate' },
    )
    const lock = createLock(compiled, {}, { cwd: 'packages/api', pinned: ['system:hostname', 'prompt:cwd'] })
    expect(lock.cwd).toBe('packages/api')
    expect(lock.pinned).toEqual(['prompt:cwd', 'system:hostname'])
    expect(lock.sections[0]!.files).toEqual([
      { path: 'A.md', hash: expect.stringMatching(/^sha256:/), lines: [2, 3] },
    ])
    expect(parseLock(formatLock(fileOf(lock))).entries.sysprompt).toEqual(lock)
    for (const cwd of ['../x', '/abs', 'a/../../b', '']) {
      expect(() => parseLock(formatLock(fileOf({ ...lock, cwd })))).toThrow(
        /cwd must be a directory relative/,
      )
    }
  })
})
