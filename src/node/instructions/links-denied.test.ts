import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from './discover.js'
import { INSTRUCTION_MODES, type InstructionMode } from './discovery-options.js'
import { explainInstructions } from './explain.js'
import { harnessName } from './withheld.js'

// Issue 30, finding 1: the deny-list judges the file a link resolves to, not
// only the name a walk asked for. Real repositories (git init), real links,
// every mode: no secret byte reaches the text, the harness view or anything
// else discovery returns; what the harness would send is withheld, with a
// reason `explain` gives and a mark in the view.

const SECRET = 'sk-live-4242-never-print'
const made: string[] = []
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))))

async function write(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, text)
}

async function link(target: string, path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await symlink(target, path)
}

/** A git repository with secrets in the usual places, and a home directory beside it. */
async function repository(): Promise<{ base: string; repo: string; home: string }> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-links-')))
  made.push(base)
  const repo = join(base, 'repo')
  const home = join(base, 'home')
  await mkdir(home, { recursive: true })
  await mkdir(repo, { recursive: true })
  execFileSync('git', ['init', '-q', repo])
  execFileSync('git', ['-C', repo, 'config', 'remote.origin.url', `https://x:${SECRET}@example.com/r.git`])
  await write(join(repo, '.env'), `API_KEY=${SECRET}\n`)
  await write(join(repo, 'keys', 'deploy.pem'), `-----BEGIN PRIVATE KEY-----\n${SECRET}\n`)
  await write(join(base, 'elsewhere', '.env'), `OUTSIDE=${SECRET}\n`)
  return { base, repo, home }
}

/** Every name some mode reads at start, as links to `target` (relative to the repository). */
const NAMES = ['AGENTS.md', 'CLAUDE.md', 'GEMINI.md', '.cursorrules', '.windsurfrules', '.rules']

type Case = [string, (r: { base: string; repo: string }) => Promise<string>, string]
const cases: Case[] = [
  ['a link to .git/config', async () => '.git/config', 'links to .git/config, a denied file (`.git/`'],
  ['a link to .env', async () => '.env', 'links to .env, a denied file (`.env`'],
  ['a link to a key file', async () => 'keys/deploy.pem', 'links to keys/deploy.pem, a denied file (`*.pem`'],
  [
    'a chain of links ending at .env',
    async ({ repo }) => {
      await link('../.env', join(repo, 'docs', 'last.md'))
      await link('last.md', join(repo, 'docs', 'first.md'))
      return 'docs/first.md'
    },
    'links to .env, a denied file (`.env`',
  ],
  [
    'a link to a denied file outside the project',
    async ({ base }) => join(base, 'elsewhere', '.env'),
    'outside the project',
  ],
]

describe('a link to a denied file is never read, in any mode', () => {
  for (const [name, target, reason] of cases) {
    it(`${name}: withheld with its reason, no secret anywhere`, async () => {
      const { base, repo, home } = await repository()
      const to = await target({ base, repo })
      for (const file of NAMES) await link(to, join(repo, file))
      for (const mode of INSTRUCTION_MODES) {
        const options = { cwd: repo, home, mode, fsRoot: base }
        const found = await discoverInstructions(options)
        expect(JSON.stringify(found), mode).not.toContain(SECRET)
        expect(found.files, mode).toEqual([])
        const asked = mode === 'claude' ? 'CLAUDE.md' : mode === 'gemini' ? 'GEMINI.md' : 'AGENTS.md'
        if (!['sysprompt', 'codex', 'claude', 'gemini', 'pi', 'opencode'].includes(mode)) continue
        const explained = await explainInstructions({ ...options, file: asked })
        expect(explained, mode).toMatchObject({ status: 'skipped' })
        expect(explained.reason, mode).toContain(reason)
        if (mode === 'sysprompt') {
          expect(explained.reason).toMatch(/^not read: /)
          expect(found.harness.parts).toEqual([])
          continue
        }
        expect(explained.reason, mode).toMatch(
          new RegExp(`^withheld: .*; ${harnessName(mode as InstructionMode)} would send it$`),
        )
        expect(found.withheld.map((w) => w.path)).toContain(join(repo, asked))
        const marks = found.harness.parts.flatMap((p) => p.withheld)
        expect(
          marks.map((m) => m.path),
          mode,
        ).toContain(join(repo, asked))
        for (const m of marks) expect(found.harness.parts.some((p) => p.text.includes(m.mark))).toBe(true)
        expect(
          found.diagnostics.map((d) => d.code),
          mode,
        ).toContain(reason === 'outside the project' ? 'outside-root' : 'denied')
      }
    })
  }

  it('a rule file linked to .env (Claude Code rules, Cursor rules) is withheld in its place', async () => {
    const { base, repo, home } = await repository()
    await write(join(repo, 'CLAUDE.md'), 'Project rules.\n')
    await link('../../.env', join(repo, '.claude', 'rules', 'secret.md'))
    await write(join(repo, '.claude', 'rules', 'z-style.md'), 'Style rule.\n')
    await link('../../.env', join(repo, '.cursor', 'rules', 'secret.mdc'))
    for (const mode of ['claude', 'cursor'] as const) {
      const found = await discoverInstructions({ cwd: repo, home, mode, fsRoot: base })
      expect(JSON.stringify(found), mode).not.toContain(SECRET)
      expect(found.withheld.map((w) => w.reason)).toEqual([
        'links to .env, a denied file (`.env` is on the deny-list of secret-bearing files)',
      ])
    }
    const claude = await discoverInstructions({ cwd: repo, home, mode: 'claude', fsRoot: base })
    // The mark stands where Claude Code puts the rule: after CLAUDE.md, before the next rule.
    const text = claude.harness.parts[0]!.text
    const at = (s: string) => text.indexOf(s)
    expect(at('Project rules.')).toBeLessThan(at('[withheld: links to .env'))
    expect(at('[withheld: links to .env')).toBeLessThan(at('Style rule.'))
  })

  it('a nested file loaded on demand is withheld for the working path that would load it', async () => {
    const { base, repo, home } = await repository()
    await write(join(repo, 'CLAUDE.md'), 'Root.\n')
    await link('../.env', join(repo, 'sub', 'CLAUDE.md'))
    await write(join(repo, 'sub', 'a.ts'), '')
    const found = await discoverInstructions({
      cwd: repo,
      home,
      mode: 'claude',
      fsRoot: base,
      paths: ['sub/a.ts'],
    })
    expect(JSON.stringify(found)).not.toContain(SECRET)
    expect(found.withheld).toEqual([
      {
        path: join(repo, 'sub', 'CLAUDE.md'),
        code: 'denied',
        reason: 'links to .env, a denied file (`.env` is on the deny-list of secret-bearing files)',
        when: 'on-demand',
        loadedFor: [join(repo, 'sub', 'a.ts')],
      },
    ])
    const late = found.harness.parts.find((p) => p.placement === 'tool-result')!
    expect(late.text).toBe(
      '[withheld: links to .env, a denied file (`.env` is on the deny-list of secret-bearing files); Claude Code would send it]',
    )
    expect(late.files).toEqual([])
  })

  it('--allow-file takes a target back: the harness view then holds the text the mark stood for', async () => {
    const { base, repo, home } = await repository()
    await link('.env', join(repo, 'CLAUDE.md'))
    const found = await discoverInstructions({
      cwd: repo,
      home,
      mode: 'claude',
      fsRoot: base,
      allowFiles: ['.env'],
    })
    expect(found.withheld).toEqual([])
    expect(found.harness.parts[0]!.text).toContain(SECRET)
  })
})
