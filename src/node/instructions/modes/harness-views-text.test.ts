import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { Tokenizer } from '../../../compile/types.js'
import { discoverInstructions } from '../discover.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// The text each harness sends, beyond what the recordings cover (see harness-views.ts).

/** Counts characters, so that a part's token count can be checked by hand. */
const chars: Tokenizer = { name: 'chars', count: (text) => text.length }

describe('claude view', () => {
  async function tree(local = '') {
    // The repository lies inside the home directory, as most do.
    const home = await fixtureTree({
      '.claude/CLAUDE.md': 'global\n',
      'repo/.git': { dir: true },
      'repo/CLAUDE.md':
        'Rules <!-- inline --> stay\n  <!-- on a line of its own -->  \nnext\r\n<!-- spans\nlines -->\r\nlast\n<!-- at the end -->',
      'repo/CLAUDE.local.md': local,
    })
    return { home, repo: join(home, 'repo') }
  }

  it('labels files by where they lie, drops comments on lines of their own and leaves empty files out', async () => {
    const { home, repo } = await tree()
    const found = await discoverInstructions({
      cwd: repo,
      home,
      mode: 'claude',
      fsRoot: home,
      tokenizer: chars,
    })
    expect(found.files.map((f) => f.path)).toContain(join(repo, 'CLAUDE.local.md'))
    const [p] = found.harness.parts
    const g = join(home, '.claude/CLAUDE.md')
    const r = join(repo, 'CLAUDE.md')
    expect(p).toMatchObject({ placement: 'first-user-message', role: 'user', files: [g, r], exact: true })
    // Another tokenizer than the two built-in ones: the prose's 211 characters, 4 to a token.
    const preamble = Math.ceil(211 / 4)
    const mark = `[Claude Code preamble: ${preamble} tokens]`
    expect(p?.marks).toEqual([{ mark, tokens: preamble }])
    expect(p?.text).toBe(
      `${mark}\n\n` +
        `Contents of ${g} (user's private global instructions for all projects):\n\nglobal\n\n` +
        `Contents of ${r} (project instructions, checked into the codebase):\n\nRules <!-- inline --> stay\nnext\r\nlast\n` +
        '</system-reminder>',
    )
    // The mark counts as the prose it stands for.
    expect(p?.tokens).toBe(p!.text.length - mark.length + preamble)
  })

  it('counts its preamble with cl100k as Claude Code published it', async () => {
    const { home, repo } = await tree('mine\n')
    const found = await discoverInstructions({
      cwd: repo,
      home,
      mode: 'claude',
      fsRoot: home,
      tokenizer: 'cl100k',
    })
    expect(found.harness.parts[0]?.marks.map((m) => m.mark)).toEqual(['[Claude Code preamble: 39 tokens]'])
  })

  it('sends no part when every file is empty', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'CLAUDE.md': '' })
    const found = await discoverInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'claude',
      fsRoot: repo,
    })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'CLAUDE.md')])
    expect(found.harness.parts).toEqual([])
  })
})

describe('codex view', () => {
  it('sends the global file alone, without a project-doc separator, when no project file exists', async () => {
    const repo = await fixtureTree({ '.git': { dir: true } })
    const home = await fixtureTree({ '.codex/AGENTS.md': 'global rules\n' })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'codex' })
    expect(found.harness.parts.map((p) => p.text)).toEqual([
      `# AGENTS.md instructions for ${repo}\n\n<INSTRUCTIONS>\nglobal rules\n</INSTRUCTIONS>`,
    ])
  })
})

describe('gemini view', () => {
  it('heads the global memory with each configured name once, and lists the files of each part', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'agents\n',
      'sub/GEMINI.md': 'sub\n',
    })
    const home = await fixtureTree({
      '.gemini/GEMINI.md': 'global\n',
      '.gemini/AGENTS.md': 'global agents\n',
    })
    const found = await discoverInstructions({
      cwd: repo,
      home,
      mode: 'gemini',
      names: ['GEMINI.md', 'AGENTS.md'],
      paths: ['sub/x.ts'],
    })
    const [system, user, tool] = found.harness.parts
    expect(system?.text.split('\n')[0]).toBe('# Contextual Instructions (GEMINI.md, AGENTS.md)')
    expect(system?.files).toEqual([join(home, '.gemini/GEMINI.md'), join(home, '.gemini/AGENTS.md')])
    expect(user).toMatchObject({ files: [join(repo, 'AGENTS.md')], exact: true })
    expect(tool?.files).toEqual([join(repo, 'sub/GEMINI.md')])
  })

  it('ends a file cut by an explicit budget with its notice, trimmed as Gemini CLI trims each file', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'GEMINI.md': `${'x'.repeat(300)}\n` })
    const found = await discoverInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'gemini',
      maxBytes: 100,
    })
    const r = join(repo, 'GEMINI.md')
    expect(found.harness.parts.map((p) => p.text)).toEqual([
      `<loaded_context>\n<project_context>\n--- Context from: ${r} ---\n` +
        '[… 300 bytes of GEMINI.md omitted …]\n' +
        `--- End of Context from: ${r} ---\n</project_context>\n</loaded_context>`,
    ])
  })
})
