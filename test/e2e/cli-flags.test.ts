import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { cli, fast, json, makeGitDir, makeRepo, sectionNames, useSandbox, write } from './cli.test-helper.js'

// The flags that shape the prompt, run end to end on the built CLI:
// --mode, --model, --set, --provider, --preset and --autonomy.
useSandbox()

interface Inspected {
  shown: string
  imports: Inspected[]
}

/** The instruction files of `inspect --json`, in load order, imports after their importer. */
function instructionOrder(data: { instructions: { files: Inspected[] } }): string[] {
  const out: string[] = []
  const walk = (files: Inspected[]) => {
    for (const f of files) {
      out.push(f.shown)
      walk(f.imports)
    }
  }
  walk(data.instructions.files)
  return out
}

describe.concurrent('--mode finds instruction files as each harness does', () => {
  let sub: string
  beforeAll(async () => {
    const repo = await makeGitDir('modes')
    sub = join(repo, 'sub')
    await write(join(repo, 'AGENTS.md'), '# Project\n\nRoot rules.\n\n@docs/notes.md\n')
    await write(join(repo, 'docs', 'notes.md'), 'Notes for every agent.\n')
    await write(join(sub, 'AGENTS.md'), '# sub\n\nSub rules.\n')
    await write(join(repo, 'CLAUDE.md'), '# Claude\n\nRoot rules for Claude.\n')
    await write(join(sub, 'CLAUDE.md'), '# Claude sub\n\n@more.md\n')
    await write(join(sub, 'more.md'), 'More for Claude, imported.\n')
  })

  it('sysprompt (the default): AGENTS.md root first, imports inlined', async () => {
    const r = await cli(['inspect', '--json', ...fast], { cwd: sub })
    expect(json(r).instructions.mode).toBe('sysprompt')
    expect(instructionOrder(json(r))).toEqual(['AGENTS.md', 'docs/notes.md', 'sub/AGENTS.md'])
  })

  it('codex: AGENTS.md root first, @ lines left as written', async () => {
    const [inspect, show] = await Promise.all([
      cli(['inspect', '--json', '--mode', 'codex', ...fast], { cwd: sub }),
      cli(['show', '--mode', 'codex', ...fast], { cwd: sub }),
    ])
    expect(json(inspect).instructions.mode).toBe('codex')
    expect(instructionOrder(json(inspect))).toEqual(['AGENTS.md', 'sub/AGENTS.md'])
    expect(show.stdout).toContain('@docs/notes.md')
    expect(show.stdout).not.toContain('Notes for every agent.')
  })

  it('claude: CLAUDE.md root first, each import right after its importer', async () => {
    const [inspect, show] = await Promise.all([
      cli(['inspect', '--json', '--mode', 'claude', ...fast], { cwd: sub }),
      cli(['show', '--mode', 'claude', ...fast], { cwd: sub }),
    ])
    const data = json(inspect)
    expect(data.instructions.mode).toBe('claude')
    expect(instructionOrder(data)).toEqual(['CLAUDE.md', 'sub/CLAUDE.md', 'sub/more.md'])
    for (const f of data.instructions.files) expect(f.tokens).toBeGreaterThan(0)
    expect(show.stdout).toContain('More for Claude, imported.')
    expect(show.stdout).not.toContain('Root rules.\n')
  })
})

describe.concurrent('--model, --set and --provider', () => {
  let repo: string
  beforeAll(async () => {
    repo = await makeRepo('model-set')
    await write(
      join(repo, '.sysprompt', 'rules', 'gpt.md'),
      '---\nmodels: ["gpt-5*"]\n---\nUse the apply_patch tool for edits.\n',
    )
    // Plain keys are mustache-only: the bracket dialect takes namespaced keys alone.
    await write(
      join(repo, 'team.md'),
      '---\ndialect: mustache\n---\nYou work for team {{team}} in {{prompt:cwd}}.\n',
    )
  })

  it('--model applies a rule with `models:` only to a matching model', async () => {
    const [gpt, claude, none, inspect] = await Promise.all([
      cli(['show', '--format', 'json', '--model', 'gpt-5-mini', ...fast], { cwd: repo }),
      cli(['show', '--format', 'json', '--model', 'claude-sonnet-4-5', ...fast], { cwd: repo }),
      cli(['show', '--format', 'json', ...fast], { cwd: repo }),
      cli(['inspect', '--json', '--model', 'claude-sonnet-4-5', ...fast], { cwd: repo }),
    ])
    expect(sectionNames(gpt)).toContain('rule:gpt')
    expect(json(gpt).text).toContain('Use the apply_patch tool for edits.')
    expect(sectionNames(claude)).not.toContain('rule:gpt')
    expect(sectionNames(none)).not.toContain('rule:gpt')
    expect(json(inspect).rules).toContainEqual(
      expect.objectContaining({ id: 'gpt', applies: false, reason: 'model' }),
    )
    expect(json(inspect).cache).toMatchObject({ model: 'claude-sonnet-4-5', minTokens: 1024 })
  })

  it('--set pins a namespaced value and sets a plain variable; the later one wins', async () => {
    const [pinned, plain] = await Promise.all([
      cli(['show', '--set', 'prompt:cwd=/workspace', ...fast], { cwd: repo }),
      cli(
        [
          'show',
          '--template',
          'team.md',
          '--set',
          'team=parsers',
          '--set',
          'team=core',
          '--set',
          'prompt:cwd=/srv/app',
          ...fast,
        ],
        { cwd: repo },
      ),
    ])
    expect(pinned.code).toBe(0)
    expect(pinned.stdout).toContain('Working directory: /workspace')
    expect(pinned.stdout).not.toContain(repo)
    expect(plain.code).toBe(0)
    expect(plain.stdout.startsWith('You work for team core in /srv/app.\n')).toBe(true)
  })

  it('--provider plans the cache of openai or gemini', async () => {
    const big = await makeRepo('provider')
    // Enough stable text to pass every provider's minimum.
    const lines = Array.from(
      { length: 400 },
      (_, i) => `Rule ${i + 1}: keep the tests green and each change small.`,
    )
    await write(join(big, 'AGENTS.md'), `# Big\n\n${lines.join('\n')}\n`)
    const [openai, gemini, unknown] = await Promise.all([
      cli(['inspect', '--json', '--provider', 'openai', ...fast], { cwd: big }),
      cli(['inspect', '--json', '--provider', 'gemini', '--model', 'gemini-2.5-pro', ...fast], { cwd: big }),
      cli(['inspect', '--json', '--provider', 'gemini', '--model', 'gemini-0-nano', ...fast], { cwd: big }),
    ])
    const o = json(openai)
    const prefix = o.stablePrefix.session.tokens
    expect(prefix).toBeGreaterThan(4096)
    // OpenAI reuses the prefix in 128-token steps from 1024 tokens on.
    expect(o.cache).toMatchObject({
      provider: 'openai',
      minTokens: 1024,
      cacheableTokens: Math.floor(prefix / 128) * 128,
      warnings: [],
    })
    expect(o.cache.breakpoints.length).toBeGreaterThan(0)
    expect(json(gemini).cache).toMatchObject({
      provider: 'gemini',
      model: 'gemini-2.5-pro',
      minTokens: 2048,
      cacheableTokens: prefix,
      warnings: [],
    })
    expect(json(unknown).cache).toMatchObject({ provider: 'gemini', minTokens: 4096 })
    expect(json(unknown).cache.warnings).toContainEqual(expect.objectContaining({ code: 'unknown-model' }))
  })
})

describe.concurrent('--preset and --autonomy', () => {
  let repo: string
  beforeAll(async () => {
    repo = await makeRepo('presets')
  })

  it('--preset layered builds the layered sections, the instruction files last', async () => {
    const r = await cli(['show', '--format', 'json', '--preset', 'layered', ...fast], { cwd: repo })
    expect(r.code).toBe(0)
    const names = sectionNames(r)
    expect(names[0]).toBe('layered:identity')
    expect(names).toEqual(expect.arrayContaining(['layered:verification', 'layered:tool-reference']))
    expect(names.filter((n) => !n.startsWith('rule:')).at(-1)).toBe('project:instructions')
    expect(json(r).text).toContain('Run the tests before you finish.')
  })

  it('--preset session --autonomy read-only changes only the safety section', async () => {
    const [readOnly, suggest] = await Promise.all([
      cli(['show', '--format', 'json', '--preset', 'session', '--autonomy', 'read-only', ...fast], {
        cwd: repo,
      }),
      cli(['show', '--format', 'json', '--preset', 'session', ...fast], { cwd: repo }),
    ])
    expect(readOnly.code).toBe(0)
    const names = sectionNames(readOnly)
    expect(names.slice(0, 6)).toEqual([
      'session:identity',
      'session:operating-contract',
      'session:safety',
      'session:tool-contract',
      'session:retrieval-hints',
      'session:project-context',
    ])
    expect(sectionNames(suggest)).toEqual(names)
    const text = (r: typeof readOnly, name: string) => {
      const s = json(r).sections.find((x: { name: string }) => x.name === name)
      return json(r).text.slice(s.start, s.end) as string
    }
    expect(text(readOnly, 'session:safety')).toContain('Autonomy: read-only.')
    expect(text(suggest, 'session:safety')).not.toContain('read-only')
    const hashes = (r: typeof readOnly) =>
      Object.fromEntries(json(r).sections.map((s: { name: string; hash: string }) => [s.name, s.hash]))
    const changed = names.filter((n) => hashes(readOnly)[n] !== hashes(suggest)[n])
    expect(changed).toEqual(['session:safety'])
  })
})
