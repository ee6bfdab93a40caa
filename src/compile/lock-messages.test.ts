import { describe, expect, it } from 'vitest'
import type { ToolSchema } from '../registry/types.js'
import { type FixtureSection, filler, promptOf } from './fixtures.test-helper.js'
import { checkLock, createLock, type LockEntry } from './index.js'

// `sysprompt check` prints these messages as they are: each names the
// section or tool, what changed and how to accept it. Pinned whole.

const UPDATE = 'If the change is intended, run `sysprompt check --update`.'
const read: ToolSchema = { name: 'read', description: 'Read a file', parameters: { type: 'object' } }
const bash: ToolSchema = { name: 'bash', parameters: { type: 'object' } }
const grep: ToolSchema = { name: 'grep', parameters: { type: 'object' } }

const base: FixtureSection[] = [
  { name: 'identity', text: 'You are a coding agent.', order: -100 }, // 6 estimate tokens
  { name: 'guidance', text: filler(1234), order: 100 },
  { name: 'project', text: 'Project notes.', order: 200 }, // 4
]
const sources = { guidance: 'presets/guidance.md', project: 'presets/project.md' }
const locked = (sections = base, tools = [read, bash]): LockEntry =>
  createLock(promptOf(sections, { tools }), sources)
const short = (hash: string) => `${hash.slice(0, 19)}…`
const messages = (sections: FixtureSection[], lock = locked(), tools = [read, bash]) =>
  checkLock(promptOf(sections, { tools }), lock).differences.map((d) => d.message)

describe('checkLock: section messages', () => {
  it('a new section, with its tokens and position', () => {
    const now = [base[0]!, base[1]!, { name: 'memory', text: 'Remember.', order: 150 }, base[2]!]
    expect(messages(now)).toEqual([`section "memory" (3 tokens) is new at position 3. ${UPDATE}`])
  })

  it('a changed section, with its source, both hashes and the token change either way', () => {
    const lock = locked()
    const grown = base.map((s) => (s.name === 'guidance' ? { ...s, text: filler(2000) } : s))
    const compiled = promptOf(grown, { tools: [read, bash] })
    const now = compiled.sections[1]!.hash
    expect(checkLock(compiled, lock).differences).toEqual([
      {
        section: 'guidance',
        kind: 'changed',
        message: `section "guidance" (from presets/guidance.md) changed: ${short(lock.sections[1]!.hash)} → ${short(now)}, 1 234 → 2 000 tokens (+766). ${UPDATE}`,
      },
    ])
    const shrunk = base.map((s) => (s.name === 'identity' ? { ...s, text: 'Hi.' } : s))
    expect(messages(shrunk, lock)[0]).toMatch(
      /^section "identity" changed: sha256:[0-9a-f]{12}… → sha256:[0-9a-f]{12}…, 6 → 1 tokens \(−5\)\. If the change/,
    )
    const same = base.map((s) => (s.name === 'project' ? { ...s, text: 'Project Notes.' } : s))
    expect(messages(same, lock)[0]).toMatch(/, 4 → 4 tokens \(\+0\)\. If the change/)
  })

  it('a removed section, with its source and the tokens it had', () => {
    expect(messages(base.slice(0, 2))).toEqual([
      `section "project" (from presets/project.md), 4 tokens in the lock, is gone. ${UPDATE}`,
    ])
    expect(messages(base.slice(1))).toEqual([`section "identity", 6 tokens in the lock, is gone. ${UPDATE}`])
  })

  it('a moved section: its position and order, each changed or unchanged', () => {
    const first = [{ ...base[2]!, order: -200 }, base[0]!, base[1]!]
    expect(messages(first)).toEqual([`section "project" moved: position 3 → 1, order 200 → -200. ${UPDATE}`])
    const reordered = [base[0]!, { ...base[1]!, order: 150 }, base[2]!]
    expect(messages(reordered)).toEqual([
      `section "guidance" moved: position 2 (unchanged), order 100 → 150. ${UPDATE}`,
    ])
    const tied = [
      { name: 'a', text: 'a', order: 1 },
      { name: 'b', text: 'b', order: 1 },
    ]
    expect(messages([tied[1]!, tied[0]!], createLock(promptOf(tied, { tools: [read, bash] })))).toEqual([
      `section "b" moved: position 2 → 1, order 1 (unchanged). ${UPDATE}`,
    ])
  })
})

describe('checkLock: tool and whole-prompt messages', () => {
  it('a new, a changed and a removed tool, and their order', () => {
    const changedRead = { ...read, description: 'Read any file' }
    expect(messages(base, locked(), [grep, changedRead])).toEqual([
      `tool "grep" is new. ${UPDATE}`,
      `tool "read" changed its description or parameters. ${UPDATE}`,
      `tool "bash" is gone. ${UPDATE}`,
    ])
    expect(messages(base, locked(), [bash, read])).toEqual([
      `tool order changed: read, bash → bash, read; the cached prefix starts with the tools. ${UPDATE}`,
    ])
  })

  it('a tools hash that changed though every tool matches', () => {
    const lock = { ...locked(), toolsHash: 'sha256:0123456789abcdef' }
    const compiled = promptOf(base, { tools: [read, bash] })
    expect(checkLock(compiled, lock).differences).toEqual([
      {
        kind: 'tools',
        message: `the tools hash changed (sha256:0123456789ab… → ${short(compiled.toolsHash)}) though every tool matches the lock. ${UPDATE}`,
      },
    ])
  })

  it('another tokenizer, and a prompt hash no section explains (a short hash quoted whole)', () => {
    const lock = { ...locked(), tokenizer: 'o200k', hash: 'sha256:00' }
    const compiled = promptOf(base, { tools: [read, bash] })
    expect(checkLock(compiled, lock)).toEqual({
      ok: false,
      differences: [
        {
          kind: 'changed',
          message: `the lock counts tokens with o200k, this prompt was counted with estimate: check with --tokenizer o200k. ${UPDATE}`,
        },
        {
          kind: 'changed',
          message: `the prompt text changed (sha256:00 → ${short(compiled.hash)}) though every section matches the lock. ${UPDATE}`,
        },
      ],
    })
  })

  it('is ok with no difference, and names no whole-prompt change when a section explains it', () => {
    expect(checkLock(promptOf(base, { tools: [read, bash] }), locked())).toEqual({
      ok: true,
      differences: [],
    })
    const changed = base.map((s) => (s.name === 'project' ? { ...s, text: 'Other notes.' } : s))
    const result = checkLock(promptOf(changed, { tools: [read, bash] }), locked())
    expect(result.differences.map((d) => d.kind)).toEqual(['changed'])
    expect(result.ok).toBe(false)
  })
})
