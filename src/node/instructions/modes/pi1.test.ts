import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

const OLD = { mode: 'pi' as const, harnessVersion: '0.73.1' }
const NEW = { mode: 'pi' as const }

// pi 1.6.0 (package @earendil-works/pi-coding-agent, read and run): `core/resource-loader`, `core/system-prompt`.
describe('pi 1.x context files', () => {
  it('tries AGENTS.override.md first in every directory and in ~/.pi/agent; 0.73.1 does not know it', async () => {
    const base = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.override.md': 'root override\n',
      'AGENTS.md': 'root agents\n',
      'pkg/AGENTS.md': 'pkg agents\n',
      'pkg/CLAUDE.md': 'pkg claude\n',
    })
    const home = await fixtureTree({
      '.pi/agent/AGENTS.override.md': 'global override\n',
      '.pi/agent/AGENTS.md': 'global agents\n',
    })
    const options = { cwd: join(base, 'pkg'), home, fsRoot: base }
    const paths = async (version: object) =>
      (await discoverInstructions({ ...options, ...version })).files.map((f) => f.path)
    expect(await paths(NEW)).toEqual([
      join(home, '.pi/agent/AGENTS.override.md'),
      join(base, 'AGENTS.override.md'),
      join(base, 'pkg/AGENTS.md'),
    ])
    expect(await paths(OLD)).toEqual([
      join(home, '.pi/agent/AGENTS.md'),
      join(base, 'AGENTS.md'),
      join(base, 'pkg/AGENTS.md'),
    ])
    expect(await explainInstructions({ ...options, ...NEW, file: join(base, 'AGENTS.md') })).toMatchObject({
      code: 'name-lost',
    })
    expect(
      await explainInstructions({ ...options, ...OLD, file: join(base, 'AGENTS.override.md') }),
    ).toMatchObject({ code: 'not-a-candidate' })
  })

  it('passes over a directory named AGENTS.md and strips a leading byte-order mark', async () => {
    const base = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': '\uFEFFroot rules\n',
      'pkg/AGENTS.md': { dir: true },
      'pkg/CLAUDE.md': 'pkg claude\n',
    })
    const found = await discoverInstructions({
      cwd: join(base, 'pkg'),
      home: await emptyHome(),
      fsRoot: base,
      ...NEW,
    })
    expect(found.files.map((f) => f.path)).toEqual([join(base, 'AGENTS.md'), join(base, 'pkg/CLAUDE.md')])
    const [part] = found.harness.parts
    expect(part!.text).toContain(`<project_instructions path="${join(base, 'AGENTS.md')}">\nroot rules\n\n</`)
    expect(part!.text).not.toContain('\uFEFF')
  })
})

describe('pi 1.x harness view', () => {
  it('marks its own prompt, then <addendum>, <project_context> with one block per file, and <cwd>', async () => {
    const base = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'root\n', 'pkg/AGENTS.md': 'pkg' })
    const home = await fixtureTree({ '.pi/agent/APPEND_SYSTEM.md': 'Answer briefly.\n' })
    const cwd = join(base, 'pkg')
    const found = await discoverInstructions({ cwd, home, fsRoot: base, ...NEW })
    const [part] = found.harness.parts
    const mark = part!.marks[0]!.mark
    expect(mark).toMatch(/^\[pi base prompt: \d+ tokens\]$/)
    const after =
      '\n\n<addendum>\nAnswer briefly.\n\n</addendum>\n\n<project_context>\nProject-specific instructions and guidelines:\n\n' +
      `<project_instructions path="${join(base, 'AGENTS.md')}">\nroot\n\n</project_instructions>\n\n` +
      `<project_instructions path="${join(base, 'pkg/AGENTS.md')}">\npkg\n</project_instructions>\n</project_context>\n\n` +
      `<cwd>\n${cwd}\n</cwd>`
    expect(part!.text).toBe(`${mark}${after}`)
    expect(part!.compared).toBe(after)
    expect(part!.files).toEqual([
      join(home, '.pi/agent/APPEND_SYSTEM.md'),
      join(base, 'AGENTS.md'),
      join(base, 'pkg/AGENTS.md'),
    ])
    expect(found.profile).toMatchObject({ version: '1.6.0', range: '1.0.0 and later' })
  })

  it('puts SYSTEM.md in place of the mark, counts an empty one as none, and sends nothing without files', async () => {
    const own = await fixtureTree({ '.git': { dir: true } })
    const home = await fixtureTree({ '.pi/agent/SYSTEM.md': 'You are mine.' })
    const replaced = (await discoverInstructions({ cwd: own, home, fsRoot: own, ...NEW })).harness.parts
    expect(replaced.map((p) => [p.text, p.marks])).toEqual([[`You are mine.\n\n<cwd>\n${own}\n</cwd>`, []]])
    const empty = await fixtureTree({ '.pi/agent/SYSTEM.md': '' })
    expect(
      (await discoverInstructions({ cwd: own, home: empty, fsRoot: own, ...NEW })).harness.parts,
    ).toEqual([])
    const none = await discoverInstructions({ cwd: own, home: await emptyHome(), fsRoot: own, ...NEW })
    expect(none.harness.parts).toEqual([])
  })
})

describe('pi 1.x skills', () => {
  const skill = (description: string, more = '') => `---\n${more}description: ${description}\n---\nBody.\n`
  const entry = (name: string, description: string, path: string) =>
    `  <skill>\n    <name>${name}</name>\n    <description>${description}</description>\n    <location>${path}</location>\n  </skill>\n`

  it("lists a trusted project's skills, then the user's, in <skills> before <cwd>", async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'agents\n',
      '.pi/skills/deploy/SKILL.md': skill('Ships <it> & more.', 'name: ship\n'),
      '.pi/skills/top.md': skill('Top file.'),
      '.pi/skills/plain.md': 'no front matter\n',
      '.pi/skills/.gitignore': 'skipped/\n',
      '.pi/skills/skipped/SKILL.md': skill('Ignored.'),
      '.agents/skills/top.md': skill('Not read at the top.'),
      '.agents/skills/group/extra.md': skill('Below the top.'),
      '.agents/skills/other/SKILL.md': skill('Loses its name.', 'name: ship\n'),
      '.agents/skills/quiet/SKILL.md': skill('Hidden.', 'disable-model-invocation: true\n'),
    })
    const home = await fixtureTree({ '.pi/agent/skills/review/SKILL.md': skill('Reviews.') })
    const options = { cwd: repo, home, fsRoot: repo, ...NEW }
    const trusted = await discoverInstructions({ ...options, harnessConfig: ['trust=yes'] })
    const review = entry('review', 'Reviews.', join(home, '.pi/agent/skills/review/SKILL.md'))
    expect(trusted.harness.parts[0]!.text).toContain(
      '</project_context>\n\n<skills>\nThe following skills provide specialized instructions for specific tasks.\n' +
        "Use the read tool to load a skill's file when the task matches its description.\n" +
        "Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.\n\n" +
        '<available_skills>\n' +
        entry('ship', 'Ships &lt;it&gt; &amp; more.', join(repo, '.pi/skills/deploy/SKILL.md')) +
        entry('skills', 'Top file.', join(repo, '.pi/skills/top.md')) +
        entry('group', 'Below the top.', join(repo, '.agents/skills/group/extra.md')) +
        review +
        `</available_skills>\n</skills>\n\n<cwd>\n${repo}\n</cwd>`,
    )
    // Untrusted (no decision saved): only the user's skills.
    const untrusted = (await discoverInstructions(options)).harness.parts[0]!.text
    expect(untrusted).toContain(`<available_skills>\n${review}</available_skills>`)
  })

  it('past 500 skill directories leaves the section out, says so and marks the part inexact', async () => {
    const many = Object.fromEntries(
      Array.from({ length: 501 }, (_, i) => [`.pi/agent/skills/d${i}/notes.txt`, 'x\n'] as const),
    )
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'agents\n' })
    const found = await discoverInstructions({
      cwd: repo,
      home: await fixtureTree(many),
      fsRoot: repo,
      ...NEW,
    })
    expect(found.harness.parts[0]!).toMatchObject({ exact: false })
    expect(found.harness.parts[0]!.text).not.toContain('<skills>')
    expect(found.diagnostics.map((d) => d.message)).toEqual([
      expect.stringContaining('too many skill directories'),
    ])
  })

  it('sends skills alone when no file is read; 0.73.1 views leave them out', async () => {
    const repo = await fixtureTree({ '.git': { dir: true } })
    const home = await fixtureTree({ '.pi/agent/skills/review/SKILL.md': skill('Reviews.') })
    const options = { cwd: repo, home, fsRoot: repo }
    const [part] = (await discoverInstructions({ ...options, ...NEW })).harness.parts
    expect(part!.compared).toMatch(/^\n\n<skills>\n[\s\S]*<\/skills>\n\n<cwd>\n/)
    expect(part!.files).toEqual([])
    expect((await discoverInstructions({ ...options, ...OLD })).harness.parts).toEqual([])
  })
})

describe('pi 1.x project trust', () => {
  const project = {
    '.git': { dir: true },
    'AGENTS.md': 'agents\n',
    '.pi/SYSTEM.md': 'project system\n',
    '.pi/APPEND_SYSTEM.md': 'project addendum\n',
  } as const
  const user = { '.pi/agent/SYSTEM.md': 'user system\n' }

  it('with no saved decision reads the user files, says the view is the untrusted one, and still loads AGENTS.md', async () => {
    const repo = await fixtureTree(project)
    const home = await fixtureTree(user)
    const options = { cwd: repo, home, fsRoot: repo, ...NEW }
    const found = await discoverInstructions(options)
    expect(found.harness.parts[0]!.files).toEqual([
      join(home, '.pi/agent/SYSTEM.md'),
      join(repo, 'AGENTS.md'),
    ])
    expect(found.diagnostics).toEqual([
      expect.objectContaining({
        code: 'harness-config',
        severity: 'info',
        path: join(repo, '.pi/SYSTEM.md'),
        message: expect.stringContaining('This view is the untrusted one'),
      }),
    ])
    expect(found.harness.notes).toEqual([found.diagnostics[0]!.message])
    expect(await explainInstructions({ ...options, file: '.pi/APPEND_SYSTEM.md' })).toMatchObject({
      status: 'skipped',
      code: 'untrusted',
      reason: expect.stringContaining('--harness-config trust=yes'),
    })
    // 0.73.1 had no trust: the project's files count.
    const old = await discoverInstructions({ ...options, ...OLD })
    expect(old.harness.parts[0]!.files[0]).toBe(join(repo, '.pi/SYSTEM.md'))
  })

  it('follows --harness-config trust, else the nearest entry of ~/.pi/agent/trust.json, else defaultProjectTrust', async () => {
    const repo = await fixtureTree(project)
    const sources = async (home: Record<string, string>, harnessConfig: string[] = []) => {
      const found = await discoverInstructions({
        cwd: repo,
        home: await fixtureTree({ ...user, ...home }),
        fsRoot: repo,
        harnessConfig,
        ...NEW,
      })
      return found.harness.parts[0]!.files.map((f) => f.split('/').slice(-2).join('/'))
    }
    const trusted = ['.pi/SYSTEM.md', '.pi/APPEND_SYSTEM.md', `${repo.split('/').at(-1)}/AGENTS.md`]
    const untrusted = ['agent/SYSTEM.md', trusted[2]]
    expect(await sources({}, ['trust=yes'])).toEqual(trusted)
    // The parent's saved decision counts for the project below it; the project's own, when saved, wins.
    const parent = JSON.stringify({ [join(repo, '..')]: true })
    expect(await sources({ '.pi/agent/trust.json': parent })).toEqual(trusted)
    const both = JSON.stringify({ [join(repo, '..')]: true, [repo]: false })
    expect(await sources({ '.pi/agent/trust.json': both })).toEqual(untrusted)
    expect(await sources({ '.pi/agent/trust.json': both }, ['trust=yes'])).toEqual(trusted)
    const always = JSON.stringify({ defaultProjectTrust: 'always' })
    expect(await sources({ '.pi/agent/settings.json': always })).toEqual(trusted)
    expect(await sources({ '.pi/agent/settings.json': always }, ['trust=no'])).toEqual(untrusted)
    const never = JSON.stringify({ defaultProjectTrust: 'never' })
    expect(await sources({ '.pi/agent/settings.json': never })).toEqual(untrusted)
  })
})

describe('pi 1.x linked worktrees', () => {
  const git = (wt: string) => ({
    '.git/HEAD': 'ref: refs/heads/main\n',
    [`.git/worktrees/${wt}/HEAD`]: `ref: refs/heads/${wt}\n`,
    [`.git/worktrees/${wt}/commondir`]: '../..\n',
  })

  it("a worktree nested in its main repository shadows the main root's file of the name it uses", async () => {
    const base = await fixtureTree({
      ...git('wt'),
      'AGENTS.md': 'main root\n',
      'wt/.git': 'gitdir: ../.git/worktrees/wt\n',
      'wt/AGENTS.md': 'worktree root\n',
      'wt/pkg/AGENTS.md': 'worktree pkg\n',
    })
    const options = { cwd: join(base, 'wt/pkg'), home: await emptyHome(), fsRoot: base }
    const paths = async (version: object) =>
      (await discoverInstructions({ ...options, ...version })).files.map((f) => f.path)
    expect(await paths(NEW)).toEqual([join(base, 'wt/AGENTS.md'), join(base, 'wt/pkg/AGENTS.md')])
    expect(await paths(OLD)).toEqual([
      join(base, 'AGENTS.md'),
      join(base, 'wt/AGENTS.md'),
      join(base, 'wt/pkg/AGENTS.md'),
    ])
    expect(await explainInstructions({ ...options, ...NEW, file: join(base, 'AGENTS.md') })).toMatchObject({
      code: 'duplicate',
      reason: expect.stringContaining('lies inside its main repository'),
    })
  })

  it("shadows nothing in a bare layout (the root's .git is not the common one), or for a file of another name", async () => {
    // proj/.bare is the repository; proj/AGENTS.md belongs to no checkout.
    const bare = await fixtureTree({
      '.bare/HEAD': 'ref: refs/heads/main\n',
      '.bare/worktrees/wt/HEAD': 'ref: refs/heads/wt\n',
      '.bare/worktrees/wt/commondir': '../..\n',
      '.git': 'gitdir: ./.bare\n',
      'AGENTS.md': 'project notes\n',
      'wt/.git': 'gitdir: ../.bare/worktrees/wt\n',
      'wt/AGENTS.md': 'worktree root\n',
    })
    const layout = await discoverInstructions({
      cwd: join(bare, 'wt'),
      home: await emptyHome(),
      fsRoot: bare,
      ...NEW,
    })
    expect(layout.files.map((f) => f.path)).toEqual([join(bare, 'AGENTS.md'), join(bare, 'wt/AGENTS.md')])
    const named = await fixtureTree({
      ...git('wt'),
      'AGENTS.md': 'main root\n',
      'wt/.git': 'gitdir: ../.git/worktrees/wt\n',
      'wt/CLAUDE.md': 'worktree root\n',
    })
    const other = await discoverInstructions({
      cwd: join(named, 'wt'),
      home: await emptyHome(),
      fsRoot: named,
      ...NEW,
    })
    expect(other.files.map((f) => f.path)).toEqual([join(named, 'AGENTS.md'), join(named, 'wt/CLAUDE.md')])
  })
})
