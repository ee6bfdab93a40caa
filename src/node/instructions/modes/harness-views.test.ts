import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// The framing of each harness as its published source writes it (see harness-views.ts);
// test/harness-recordings.test.ts compares the views with what the real harnesses sent.
async function tree() {
  const base = await fixtureTree({
    'repo/.git': { dir: true },
    'repo/AGENTS.md': '# Root\n\nUse pnpm.\n',
    'repo/CLAUDE.md': '# Claude root\n',
    'repo/CLAUDE.local.md': 'mine\n',
    'repo/GEMINI.md': '  # Gemini root  \n\n',
    'repo/pkg/AGENTS.md': 'pkg rules\n',
    'repo/pkg/GEMINI.md': 'pkg gemini\n',
    'repo/pkg/sub/GEMINI.md': 'sub gemini\n',
  })
  const home = await fixtureTree({
    '.codex/AGENTS.md': '\nglobal codex\n\n',
    '.gemini/GEMINI.md': 'global gemini\n',
  })
  return { base, repo: join(base, 'repo'), home }
}

describe('harness views', () => {
  it('codex: one user-role message of its own, the global file, --- project-doc ---, the chain', async () => {
    const { base, repo, home } = await tree()
    const found = await discoverInstructions({ cwd: join(repo, 'pkg'), home, mode: 'codex', fsRoot: base })
    expect(found.harness.parts).toHaveLength(1)
    const [p] = found.harness.parts
    expect(p).toMatchObject({ placement: 'separate-message', role: 'user', exact: true, marks: [] })
    expect(p?.text).toBe(
      `# AGENTS.md instructions for ${join(repo, 'pkg')}\n\n<INSTRUCTIONS>\nglobal codex\n\n--- project-doc ---\n\n# Root\n\nUse pnpm.\n\n\npkg rules\n\n</INSTRUCTIONS>`,
    )
    expect(p?.compared).toBe(p?.text)
    expect(p?.files).toEqual([
      join(home, '.codex/AGENTS.md'),
      join(repo, 'AGENTS.md'),
      join(repo, 'pkg/AGENTS.md'),
    ])
  })

  it('claude: Contents of <path> (<kind>) blocks in the first user message, prose marked', async () => {
    const { base, repo, home } = await tree()
    const found = await discoverInstructions({
      cwd: repo,
      home,
      mode: 'claude',
      fsRoot: base,
      tokenizer: 'o200k',
    })
    const [p] = found.harness.parts
    expect(p?.placement).toBe('first-user-message')
    expect(p?.marks.map((m) => m.mark)).toEqual(['[Claude Code preamble: 40 tokens]'])
    expect(p?.compared).toBe(
      `\n\nContents of ${join(repo, 'CLAUDE.md')} (project instructions, checked into the codebase):\n\n# Claude root\n\n` +
        `Contents of ${join(repo, 'CLAUDE.local.md')} (user's private project instructions, not checked in):\n\nmine\n</system-reminder>`,
    )
    // The marks count as the prose they stand for.
    expect(p?.tokens).toBeGreaterThan(40)
  })

  it('gemini: global memory in the system instruction, project memory in the first user message, JIT in a tool result', async () => {
    const { base, repo, home } = await tree()
    const found = await discoverInstructions({
      cwd: join(repo, 'pkg'),
      home,
      mode: 'gemini',
      fsRoot: base,
      paths: ['sub/x.ts'],
    })
    expect(found.harness.parts.map((p) => [p.placement, p.role])).toEqual([
      ['system-prompt', 'system'],
      ['first-user-message', 'user'],
      ['tool-result', 'tool'],
    ])
    const [system, user, tool] = found.harness.parts
    const g = join(home, '.gemini/GEMINI.md')
    expect(system?.text.startsWith('# Contextual Instructions (GEMINI.md)\n[Gemini CLI preamble: ')).toBe(
      true,
    )
    expect(system?.compared).toBe(
      `\n\n<loaded_context>\n--- Context from: ${g} ---\nglobal gemini\n--- End of Context from: ${g} ---\n</loaded_context>`,
    )
    const r = join(repo, 'GEMINI.md')
    const p = join(repo, 'pkg/GEMINI.md')
    expect(user?.text).toBe(
      `<loaded_context>\n<project_context>\n--- Context from: ${r} ---\n# Gemini root\n--- End of Context from: ${r} ---\n\n` +
        `--- Context from: ${p} ---\npkg gemini\n--- End of Context from: ${p} ---\n</project_context>\n</loaded_context>`,
    )
    const s = join(repo, 'pkg/sub/GEMINI.md')
    expect(tool?.text).toBe(
      `\n\n--- Newly Discovered Project Context ---\n--- Context from: ${s} ---\nsub gemini\n--- End of Context from: ${s} ---\n--- End Project Context ---`,
    )
  })

  it('pi 0.73.1: # Project Context appended to the system prompt, each file under ## <path>', async () => {
    const { base, repo, home } = await tree()
    const cwd = join(repo, 'pkg')
    const found = await discoverInstructions({
      cwd,
      home,
      mode: 'pi',
      harnessVersion: '0.73.1',
      fsRoot: base,
    })
    expect(found.harness.parts.map((p) => p.text)).toEqual([
      `# Project Context\n\nProject-specific instructions and guidelines:\n\n## ${join(repo, 'AGENTS.md')}\n\n# Root\n\nUse pnpm.\n\n\n## ${join(repo, 'pkg/AGENTS.md')}\n\npkg rules\n\n\n`,
    ])
  })

  it('opencode: Instructions from: <path> per file in the system prompt, nearest first', async () => {
    const { base, repo, home } = await tree()
    const found = await discoverInstructions({ cwd: join(repo, 'pkg'), home, mode: 'opencode', fsRoot: base })
    expect(found.harness.parts.map((p) => [p.placement, p.text])).toEqual([
      [
        'system-prompt',
        `Instructions from: ${join(repo, 'pkg/AGENTS.md')}\npkg rules\n\nInstructions from: ${join(repo, 'AGENTS.md')}\n# Root\n\nUse pnpm.\n`,
      ],
    ])
  })

  it('a harness with no files sends no part', async () => {
    const base = await fixtureTree({ 'repo/.git': { dir: true } })
    const home = await fixtureTree({})
    for (const mode of ['codex', 'claude', 'gemini', 'pi', 'opencode', 'sysprompt'] as const) {
      const found = await discoverInstructions({ cwd: join(base, 'repo'), home, mode, fsRoot: base })
      expect(found.harness.parts).toEqual([])
    }
  })
})
