import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { cli, fast, json, makeGitDir, useSandbox, write } from './cli.test-helper.js'

// Plain `inspect` opens with what every agent sees here: a line per harness in use, one for the
// readers of AGENTS.md, the skills each lists, and the files none of them reads (issue 31, finding 7).
useSandbox()

// Several runs of the built command per test; a busy 2-core machine needs more than the default 30 s.
const SLOW = 120_000

let repo = ''
beforeAll(async () => {
  repo = await makeGitDir('first-screen')
  await write(join(repo, 'GEMINI.md'), '# Gemini\n\nRun the linter before you commit.\n')
  await write(join(repo, 'packages', 'core', 'GEMINI.md'), '# Core\n\nKeep the public API small.\n')
  await write(join(repo, 'AGENTS.md'), '# Agents\n\nUse pnpm, never npm.\n')
  await write(
    join(repo, '.claude', 'skills', 'release', 'SKILL.md'),
    `---\nname: release\ndescription: Cut a release and write its notes\n---\n\n${'Step by step, the release. '.repeat(40)}\n`,
  )
  // A Cursor rule outside .cursor/rules/, always on by its front matter: Cursor never reads it.
  await write(join(repo, 'docs', '.cursor', 'rules.mdc'), '---\nalwaysApply: true\n---\nDocs rule.\n')
  // A rule in the right place with the wrong extension.
  await write(join(repo, '.github', 'instructions', 'style.md'), '---\napplyTo: "**"\n---\nStyle.\n')
  await write(join(repo, 'src', 'a.ts'), 'export {}\n')
  // Cline's workflows are not rules: neither loaded nor "never loaded".
  await write(join(repo, '.clinerules', 'style.md'), 'Prefer small functions.\n')
  await write(join(repo, '.clinerules', 'workflows', 'release.md'), '# Release\n\n1. Tag.\n')
})

describe('inspect: the first screen', () => {
  it(
    'lists Gemini CLI with its GEMINI.md files though sysprompt mode loads none, and AGENTS.md with its readers',
    async () => {
      const data = json(await cli(['inspect', '--json', ...fast], { cwd: repo }))
      const gemini = data.harnesses.find((h: { label: string }) => h.label === 'gemini')
      expect(gemini.modes).toEqual(['gemini'])
      expect(gemini.because).toContain('GEMINI.md')
      expect(gemini.start.files).toBe(1)
      // The nested GEMINI.md arrives when the agent works in packages/core.
      expect(gemini.onDemand.files).toBe(1)
      expect(gemini.start.tokens).toBeGreaterThan(0)
      const shared = data.harnesses.find((h: { label: string }) => h.label === 'AGENTS.md')
      expect(shared.modes).toContain('codex')
      expect(shared.modes).not.toContain('gemini')
      expect(shared.modes).not.toContain('claude')
      // Claude Code is in use through its skill directory.
      const claude = data.harnesses.find((h: { label: string }) => h.label === 'claude')
      expect(claude.because).toEqual(['.claude/skills/release/SKILL.md'])
      expect(claude.skills.count).toBe(1)
    },
    SLOW,
  )

  it(
    'counts skills per harness: name and description at start, the body when used',
    async () => {
      const data = json(await cli(['inspect', '--json', ...fast], { cwd: repo }))
      expect(data.skills).toHaveLength(1)
      const [skill] = data.skills
      expect(skill.shown).toBe('.claude/skills/release/SKILL.md')
      expect(skill.readers).toEqual(['claude', 'opencode'])
      expect(skill.startTokens).toBeGreaterThan(0)
      expect(skill.bodyTokens).toBeGreaterThan(skill.startTokens * 5)
    },
    SLOW,
  )

  it(
    'lists files no harness reads, with the reason',
    async () => {
      const data = json(await cli(['inspect', '--json', ...fast], { cwd: repo }))
      const never = Object.fromEntries(
        data.neverLoaded.map((f: { shown: string; reason: string }) => [f.shown, f.reason]),
      )
      expect(never).toEqual({
        'docs/.cursor/rules.mdc': 'misplaced',
        '.github/instructions/style.md': 'wrong-extension',
      })
      const lint = json(await cli(['lint', '--json', ...fast], { cwd: repo }))
      const files = lint
        .filter((f: { code: string }) => f.code === 'rule-never-loads')
        .map((f: { file: string }) => f.file)
      expect(files.sort()).toEqual(
        [
          join(repo, '.github', 'instructions', 'style.md'),
          join(repo, 'docs', '.cursor', 'rules.mdc'),
        ].sort(),
      )
    },
    SLOW,
  )

  it(
    'prints the first screen before the detail, every line within 80 columns and every path whole',
    async () => {
      const r = await cli(['inspect', ...fast], { cwd: repo })
      expect(r.code, r.stderr).toBe(0)
      const out = r.stdout
      const agents = out.indexOf('Agents in this repository')
      expect(agents).toBeGreaterThan(-1)
      expect(agents).toBeLessThan(out.indexOf('Sections'))
      expect(out).toMatch(/^ {2}gemini {2,}1 file at start/m)
      expect(out).toMatch(/^ {2}AGENTS\.md {2,}read by codex,/m)
      expect(out).toContain('Skills (name and description at start, the body when used)')
      expect(out).toContain('Never loaded')
      expect(out).toContain('docs/.cursor/rules.mdc is loaded by no mode')
      for (const line of out.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)
    },
    SLOW,
  )

  it(
    'is left out when a mode is chosen: that harness alone is asked for',
    async () => {
      const [text, data] = await Promise.all([
        cli(['inspect', '--mode', 'gemini', ...fast], { cwd: repo }),
        cli(['inspect', '--mode', 'gemini', '--json', ...fast], { cwd: repo }),
      ])
      expect(text.stdout).not.toContain('Agents in this repository')
      expect(text.stdout).toContain('GEMINI.md')
      expect(json(data)).toMatchObject({ harnesses: null, skills: null, neverLoaded: null })
      // A harness frames files its own way (counted in its parts): no sysprompt header per file.
      expect(json(data).instructions.files[0].framingTokens).toBeNull()
      expect(text.stdout).not.toContain('<!-- path --> line')
      expect(text.stdout).toContain('its framing is counted in the parts below')
    },
    SLOW,
  )

  it(
    "says where the instructions are when sysprompt's own mode finds none (a GEMINI.md-only repository)",
    async () => {
      const only = await makeGitDir('gemini-only')
      await write(join(only, 'GEMINI.md'), '# Gemini\n\nUse the house style.\n')
      const r = await cli(['inspect', ...fast], { cwd: only })
      expect(r.stdout).toMatch(/^ {2}gemini {2,}1 file at start/m)
      expect(r.stdout).toContain('(none that sysprompt mode reads; --mode gemini shows what gemini loads)')
    },
    SLOW,
  )
})
