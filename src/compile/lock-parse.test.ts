import { describe, expect, it } from 'vitest'
import { LockError, parseLockFile } from './lock-parse.js'
import { LOCK_UPDATE } from './lock-types.js'

// These tests feed version 1 locks: each is read as the one entry `sysprompt`.
const parseLock = (text: string) => {
  const read = parseLockFile(text)
  if (read.version !== 1) throw new Error('expected a version 1 lock')
  return read.lock.entries.sysprompt!
}

// `sysprompt.lock` is untrusted input: every field is checked, and a bad one
// is named in a one-line message that says what it must be and how to
// regenerate the file.

type Json = Record<string, unknown>

const section = (name: string, extra: Json = {}): Json => ({
  name,
  order: 0,
  hash: `sha256:${name}`,
  tokens: 3,
  ...extra,
})

const valid = (): Json => ({
  version: 1,
  hash: 'sha256:all',
  tokens: 7,
  tokenizer: 'o200k',
  toolsHash: 'sha256:tools',
  tools: [{ name: 'read', hash: 'sha256:r' }],
  sections: [
    section('identity', { order: -100.5, source: 'presets/identity.md' }),
    section('docs', {
      textHash: 'sha256:t',
      files: [
        { path: 'A.md', hash: 'sha256:a', lines: [2, 3] },
        { path: 'B.md', hash: 'sha256:b', lines: [4, 4] },
      ],
    }),
  ],
})

function failure(value: unknown): LockError {
  try {
    parseLock(typeof value === 'string' ? value : JSON.stringify(value))
  } catch (error) {
    if (error instanceof LockError) return error
    throw error
  }
  throw new Error('parseLock accepted it')
}

/** `valid()` with `change` applied to it. */
function changed(change: (lock: Json & { sections: Json[] }) => void): Json {
  const lock = valid() as Json & { sections: Json[] }
  change(lock)
  return lock
}

const shape = (path: string, expected: string) =>
  `sysprompt.lock: ${path} must be ${expected}; fix it or regenerate the file with \`sysprompt check --update\``

describe('parseLock: what it accepts', () => {
  it('reads every field, optional ones included, and ignores unknown keys', () => {
    const lock = changed((l) => {
      l.cwd = 'packages/api'
      l.pinned = ['prompt:cwd']
      l.extra = { anything: true }
      ;(l.sections[0] as Json).later = 1
    })
    expect(parseLock(JSON.stringify(lock))).toEqual({
      hash: 'sha256:all',
      tokens: 7,
      tokenizer: 'o200k',
      toolsHash: 'sha256:tools',
      tools: [{ name: 'read', hash: 'sha256:r' }],
      sections: [
        {
          name: 'identity',
          order: -100.5,
          hash: 'sha256:identity',
          tokens: 3,
          source: 'presets/identity.md',
        },
        {
          name: 'docs',
          order: 0,
          hash: 'sha256:docs',
          tokens: 3,
          textHash: 'sha256:t',
          files: [
            { path: 'A.md', hash: 'sha256:a', lines: [2, 3] },
            { path: 'B.md', hash: 'sha256:b', lines: [4, 4] },
          ],
        },
      ],
      cwd: 'packages/api',
      pinned: ['prompt:cwd'],
    })
  })

  it('leaves out the optional fields a lock does not have', () => {
    const lock = parseLock(JSON.stringify({ ...valid(), sections: [section('a')] }))
    expect(Object.keys(lock)).toEqual(['hash', 'tokens', 'tokenizer', 'toolsHash', 'tools', 'sections'])
    expect(Object.keys(lock.sections[0]!)).toEqual(['name', 'order', 'hash', 'tokens'])
  })

  it('takes a file that starts on the first line of the prompt', () => {
    const lock = parseLock(
      JSON.stringify({
        ...valid(),
        sections: [
          section('docs', {
            textHash: 'sha256:t',
            files: [{ path: 'A.md', hash: 'sha256:a', lines: [1, 1] }],
          }),
        ],
      }),
    )
    expect(lock.sections[0]!.files?.[0]?.lines).toEqual([1, 1])
  })

  it('refuses an order too large to be a number (1e999 reads as Infinity)', () => {
    const text = JSON.stringify({ ...valid(), sections: [section('a')] }).replace(
      '"order":0',
      '"order":1e999',
    )
    expect(() => parseLock(text)).toThrow(LockError)
  })

  it('takes zero tokens, and cwd "." or a nested directory', () => {
    expect(parseLock(JSON.stringify({ ...valid(), tokens: 0 })).tokens).toBe(0)
    for (const cwd of ['.', 'a', 'a/b/c', 'a..b', '...', 'é/x', 'notes/draft:v1'])
      expect(parseLock(JSON.stringify({ ...valid(), cwd })).cwd).toBe(cwd)
  })
})

describe('parseLock: what it rejects', () => {
  it('text that is not JSON, quoting the parser and keeping it as the cause', () => {
    const error = failure('{ "version": 1,')
    expect(error.code).toBe('invalid-json')
    expect(error.path).toBeUndefined()
    expect(error.name).toBe('LockError')
    expect(error.cause).toBeInstanceOf(SyntaxError)
    expect(error.message).toBe(
      `sysprompt.lock is not valid JSON (${(error.cause as Error).message}); fix it or regenerate it with \`sysprompt check --update\``,
    )
  })

  it('another version, saying which and what to do', () => {
    for (const version of [3, '1', null]) {
      const error = failure({ ...valid(), version })
      expect([error.code, error.path]).toEqual(['unsupported-version', 'version'])
      expect(error.message).toBe(
        `sysprompt.lock:1 has version ${JSON.stringify(version)}; this sysprompt reads versions 1 and 2. Upgrade sysprompt, or regenerate the file with \`sysprompt check --update\``,
      )
    }
    expect(failure({ ...valid(), version: undefined }).message).toMatch(
      /^sysprompt.lock has version undefined;/,
    )
  })

  const cases: Array<[string, Json | unknown, string, string]> = [
    ['a top level that is an array', [], 'the top level', 'an object'],
    ['a top level that is null', null, 'the top level', 'an object'],
    ['a top level that is a string', '"x"', 'the top level', 'an object'],
    ['a hash that is not a string', changed((l) => (l.hash = 1)), 'hash', 'a string'],
    ['no tokenizer', changed((l) => delete l.tokenizer), 'tokenizer', 'a string'],
    ['no tools hash', changed((l) => delete l.toolsHash), 'toolsHash', 'a string'],
    ['negative tokens', changed((l) => (l.tokens = -1)), 'tokens', 'a whole number ≥ 0'],
    ['fractional tokens', changed((l) => (l.tokens = 1.5)), 'tokens', 'a whole number ≥ 0'],
    ['tokens as a string', changed((l) => (l.tokens = '7')), 'tokens', 'a whole number ≥ 0'],
    ['tools that are not an array', changed((l) => (l.tools = {})), 'tools', 'an array'],
    ['a tool that is not an object', changed((l) => (l.tools = [null])), 'tools[0]', 'an object'],
    ['a tool that is an array', changed((l) => (l.tools = [[]])), 'tools[0]', 'an object'],
    ['a tool without a name', changed((l) => (l.tools = [{ hash: 'h' }])), 'tools[0].name', 'a string'],
    [
      'a second tool without a hash',
      changed((l) => (l.tools = [{ name: 'a', hash: 'h' }, { name: 'b' }])),
      'tools[1].hash',
      'a string',
    ],
    ['sections that are not an array', changed((l) => (l.sections = 'x' as never)), 'sections', 'an array'],
    [
      'a section that is not an object',
      changed((l) => (l.sections = [1 as never])),
      'sections[0]',
      'an object',
    ],
    ['a section without a name', changed((l) => delete l.sections[1]!.name), 'sections[1].name', 'a string'],
    [
      'a section name that appears twice',
      changed((l) => (l.sections[1]!.name = 'identity')),
      'sections[1].name',
      'unique, but "identity" appears twice',
    ],
    [
      'an order that is a string',
      changed((l) => (l.sections[0]!.order = '1')),
      'sections[0].order',
      'a number',
    ],
    ['no order', changed((l) => delete l.sections[0]!.order), 'sections[0].order', 'a number'],
    ['a section hash missing', changed((l) => delete l.sections[0]!.hash), 'sections[0].hash', 'a string'],
    [
      'section tokens below zero',
      changed((l) => (l.sections[0]!.tokens = -2)),
      'sections[0].tokens',
      'a whole number ≥ 0',
    ],
    [
      'a source that is not a string',
      changed((l) => (l.sections[0]!.source = 3)),
      'sections[0].source',
      'a string',
    ],
    [
      'files without a text hash',
      changed((l) => delete l.sections[1]!.textHash),
      'sections[1].textHash',
      'a string',
    ],
    [
      'files that are not an array',
      changed((l) => (l.sections[1]!.files = {})),
      'sections[1].files',
      'an array',
    ],
    [
      'a file that is not an object',
      changed((l) => (l.sections[1]!.files = ['A.md'])),
      'sections[1].files[0]',
      'an object',
    ],
    ...(
      [
        ['no lines', undefined],
        ['one line number', [2]],
        ['three line numbers', [1, 2, 3]],
        ['line zero', [0, 2]],
        ['a last line of zero', [1, 0]],
        ['a fractional line', [1.5, 2]],
        ['a line as a string', ['1', 2]],
        ['first after last', [3, 2]],
        ['lines that are an object', { 0: 1, 1: 2, length: 2 }],
      ] as const
    ).map(([label, lines]): [string, Json, string, string] => [
      `a file with ${label}`,
      changed((l) => ((l.sections[1]!.files as Json[])[1]!.lines = lines as never)),
      'sections[1].files[1].lines',
      'two line numbers [first, last], first ≤ last',
    ]),
    [
      'a file without a path',
      changed((l) => delete (l.sections[1]!.files as Json[])[0]!.path),
      'sections[1].files[0].path',
      'a string',
    ],
    [
      'a file without a hash',
      changed((l) => delete (l.sections[1]!.files as Json[])[0]!.hash),
      'sections[1].files[0].hash',
      'a string',
    ],
    ['a cwd that is not a string', changed((l) => (l.cwd = 1)), 'cwd', 'a string'],
    ['pinned keys that are not an array', changed((l) => (l.pinned = 'x')), 'pinned', 'an array'],
    ['a pinned key that is not a string', changed((l) => (l.pinned = ['a', 2])), 'pinned[1]', 'a string'],
  ]
  for (const [label, lock, path, expected] of cases) {
    it(`${label}: ${path}`, () => {
      const error = failure(lock)
      expect(error).toBeInstanceOf(LockError)
      expect([error.code, error.path]).toEqual(['invalid-shape', path])
      expect(error.message).toBe(shape(path, expected))
    })
  }

  it('a cwd that leaves the project root or is not relative', () => {
    const cwds = ['', '/abs', 'C:/x', 'c:x', 'a\\b', '..', 'a/../../b', 'a/..', 'a\u0000b']
    for (const cwd of cwds) {
      const error = failure({ ...valid(), cwd })
      expect([error.code, error.path, error.message]).toEqual([
        'invalid-shape',
        'cwd',
        shape('cwd', 'a directory relative to the project root, like "." or "packages/api"'),
      ])
    }
  })
})

describe('LOCK_UPDATE', () => {
  it('is the advice every lock difference ends with', () => {
    expect(LOCK_UPDATE).toBe('If the change is intended, run `sysprompt check --update`.')
  })
})

describe('parseLockFile: version 2', () => {
  const entry = (hash: string) => ({
    hash,
    tokens: 1,
    tokenizer: 'o200k',
    toolsHash: 'sha256:t',
    tools: [],
    sections: [],
  })

  it('reads entries by key, and a version 1 lock as the entry sysprompt', () => {
    const text = JSON.stringify({
      version: 2,
      entries: { sysprompt: entry('a'), 'claude@2.1.332': entry('b') },
    })
    expect(parseLockFile(text)).toEqual({
      version: 2,
      lock: { version: 2, entries: { sysprompt: entry('a'), 'claude@2.1.332': entry('b') } },
    })
    expect(parseLockFile(JSON.stringify({ version: 1, ...entry('a') }))).toEqual({
      version: 1,
      lock: { version: 2, entries: { sysprompt: entry('a') } },
    })
  })

  it('refuses an entry key given twice, at the line of the second', () => {
    const text = `{\n  "version": 2,\n  "entries": {\n    "codex": ${JSON.stringify(entry('a'))},\n    "codex": ${JSON.stringify(entry('b'))}\n  }\n}\n`
    const error = (() => {
      try {
        parseLockFile(text)
      } catch (e) {
        return e as LockError
      }
      throw new Error('accepted')
    })()
    expect([error.code, error.line]).toEqual(['duplicate-key', 5])
    expect(error.message).toContain('sysprompt.lock:5: the entry "codex" is given twice (first at line 4)')
  })

  it('refuses a key that is not a mode, and names the entry and its line for a wrong field', () => {
    expect(() =>
      parseLockFile(JSON.stringify({ version: 2, entries: { 'Claude Code': entry('a') } })),
    ).toThrow(/entries\["Claude Code"\] must be keyed/)
    const text = `{\n  "version": 2,\n  "entries": {\n    "pi@0.73.1": { "hash": 1 }\n  }\n}\n`
    expect(() => parseLockFile(text)).toThrow('sysprompt.lock:4: entries["pi@0.73.1"].hash must be a string')
  })
})
