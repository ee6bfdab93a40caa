import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from './discover.js'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'
import { fires, ON_DEMAND_DIR_LIMIT } from './on-demand.js'

afterAll(removeFixtures)

async function repo() {
  const base = await fixtureTree({
    '.git': { dir: true },
    'CLAUDE.md': 'root claude\n',
    'AGENTS.md': 'root agents\n',
    'GEMINI.md': 'root gemini\n',
    '.claude/rules/ts.md': '---\npaths: ["src/**/*.ts"]\n---\nts rule\n',
    '.claude/rules/always.md': 'always rule\n',
    'src/api/CLAUDE.md': 'api claude\n',
    'src/api/CLAUDE.local.md': 'api local\n',
    'src/api/AGENTS.md': 'api agents\n',
    'src/api/GEMINI.md': '\n  api gemini  \n\n',
    'src/api/deep/AGENTS.md': 'deep agents\n',
    'src/api/handler.ts': 'export {}\n',
    'docs/CLAUDE.md': 'docs claude\n',
    'node_modules/pkg/CLAUDE.md': 'never walked\n',
    '.git/x/CLAUDE.md': 'never walked either\n',
  })
  return { base, home: await emptyHome() }
}

describe('on demand: files a harness loads only when the agent works near them', () => {
  it('claude: nested CLAUDE.md files and path rules are on demand, not loaded and not skipped', async () => {
    const { base, home } = await repo()
    const found = await discoverInstructions({ cwd: base, home, mode: 'claude', fsRoot: base })
    expect(found.files.map((f) => f.path)).toEqual([
      join(base, 'CLAUDE.md'),
      join(base, '.claude/rules/always.md'),
    ])
    expect(found.onDemand.map((f) => [f.path, f.when])).toEqual([
      [join(base, '.claude/rules/ts.md'), 'when the agent reads a file matching src/**/*.ts'],
      [join(base, 'docs/CLAUDE.md'), 'when the agent works under docs'],
      [join(base, 'src/api/CLAUDE.md'), 'when the agent works under src/api'],
      [join(base, 'src/api/CLAUDE.local.md'), 'when the agent works under src/api'],
    ])
    expect(found.onDemand.every((f) => f.tokens > 0 && f.loadedFor.length === 0)).toBe(true)
    expect(found.lateBound).toEqual([])
    expect(found.text).not.toContain('api claude')
    const explained = await explainInstructions({
      cwd: base,
      home,
      mode: 'claude',
      fsRoot: base,
      file: 'src/api/CLAUDE.md',
    })
    expect(explained).toMatchObject({ status: 'on-demand', code: 'on-demand' })
    expect(explained.reason).toContain('on demand, when the agent works under src/api')
  })

  it('claude: a working path turns the files that cover it into late-bound entries, outside the text', async () => {
    const { base, home } = await repo()
    const options = { cwd: base, home, mode: 'claude' as const, fsRoot: base, paths: ['src/api/handler.ts'] }
    const found = await discoverInstructions(options)
    expect(found.lateBound.map((f) => [f.path, f.text])).toEqual([
      [join(base, '.claude/rules/ts.md'), 'ts rule\n'],
      [join(base, 'src/api/CLAUDE.md'), 'api claude\n'],
      [join(base, 'src/api/CLAUDE.local.md'), 'api local\n'],
    ])
    expect(found.lateBound[0]?.loadedFor).toEqual([join(base, 'src/api/handler.ts')])
    expect(found.onDemand.find((f) => f.path.endsWith('docs/CLAUDE.md'))?.loadedFor).toEqual([])
    // Late-bound text never enters the cached prefix.
    expect(found.text).not.toContain('ts rule')
    expect(found.text).not.toContain('api claude')
    expect(await explainInstructions({ ...options, file: join(base, '.claude/rules/ts.md') })).toMatchObject({
      status: 'late-bound',
      code: 'late-bound',
    })
    const other = await discoverInstructions({ ...options, paths: ['docs/guide.md'] })
    expect(other.lateBound.map((f) => f.path)).toEqual([join(base, 'docs/CLAUDE.md')])
  })

  it('explains an on-demand file and a late-bound one in words, naming every path that loads it', async () => {
    const { base, home } = await repo()
    const options = { cwd: base, home, mode: 'claude' as const, fsRoot: base }
    expect(await explainInstructions({ ...options, file: 'docs/CLAUDE.md' })).toEqual({
      file: join(base, 'docs/CLAUDE.md'),
      status: 'on-demand',
      code: 'on-demand',
      reason:
        'on demand, when the agent works under docs: the harness adds it to a tool result then, never to the cached prefix (pass --path to see it loaded)',
      profile: expect.stringMatching(/^claude /),
    })
    const paths = ['src/api/handler.ts', 'src/api/deep/x.ts', 'src/api']
    const late = await explainInstructions({ ...options, paths, file: 'src/api/CLAUDE.md' })
    // The directory itself is not under itself: only the two files load it.
    expect(late).toMatchObject({
      status: 'late-bound',
      code: 'late-bound',
      reason:
        'loaded late, with the tool result for src/api/handler.ts, src/api/deep/x.ts (when the agent works under src/api); never in the cached prefix',
    })
    const found = await discoverInstructions({ ...options, paths })
    expect(found.lateBound.find((f) => f.path === join(base, 'src/api/CLAUDE.md'))).toMatchObject({
      text: 'api claude\n',
      loadedFor: [join(base, 'src/api/handler.ts'), join(base, 'src/api/deep/x.ts')],
      bytes: 11,
    })
  })

  it('gemini: GEMINI.md below cwd is just-in-time context, trimmed as Gemini CLI sends it', async () => {
    const { base, home } = await repo()
    const found = await discoverInstructions({
      cwd: base,
      home,
      mode: 'gemini',
      fsRoot: base,
      paths: [join(base, 'src/api/handler.ts')],
    })
    expect(found.files.map((f) => f.path)).toEqual([join(base, 'GEMINI.md')])
    expect(found.onDemand.map((f) => f.when)).toEqual(['when the agent works under src/api'])
    expect(found.lateBound.map((f) => f.text)).toEqual(['api gemini'])
  })

  it('opencode: the first name in each directory below cwd is loaded lazily', async () => {
    const { base, home } = await repo()
    const found = await discoverInstructions({
      cwd: base,
      home,
      mode: 'opencode',
      fsRoot: base,
      paths: ['src/api/deep/x.ts'],
    })
    expect(found.onDemand.map((f) => f.path)).toEqual([
      join(base, 'docs/CLAUDE.md'),
      join(base, 'src/api/AGENTS.md'),
      join(base, 'src/api/deep/AGENTS.md'),
    ])
    expect(found.lateBound.map((f) => f.path)).toEqual([
      join(base, 'src/api/AGENTS.md'),
      join(base, 'src/api/deep/AGENTS.md'),
    ])
  })

  it('stops looking for on-demand files after ON_DEMAND_DIR_LIMIT directories, and says so', async () => {
    // One directory more than the limit, in one level: the walk takes them in name order.
    const base = await fixtureTree({ '.git': { dir: true }, 'CLAUDE.md': 'root\n' })
    const names = Array.from({ length: ON_DEMAND_DIR_LIMIT + 1 }, (_, i) => `d${String(i).padStart(5, '0')}`)
    for (let i = 0; i < names.length; i += 500)
      await Promise.all(names.slice(i, i + 500).map((name) => mkdir(join(base, name))))
    const first = join(base, names[0]!, 'CLAUDE.md')
    const beyond = join(base, names.at(-1)!, 'CLAUDE.md')
    await writeFile(first, 'first\n')
    await writeFile(beyond, 'beyond the limit\n')
    const found = await discoverInstructions({
      cwd: base,
      home: await emptyHome(),
      mode: 'claude',
      fsRoot: base,
    })
    expect(found.onDemand.map((f) => f.path)).toEqual([first])
    expect(found.diagnostics).toEqual([
      {
        code: 'on-demand-limit',
        severity: 'info',
        message:
          'more than 5000 directories lie below .; files loaded on demand were looked for in the first 5000 only. Start from a smaller directory.',
        path: base,
      },
    ])
  })

  it('names the directory the globs of a nested rule are relative to', async () => {
    const base = await fixtureTree({
      '.git': { dir: true },
      '.cursor/rules/top.mdc': '---\nglobs: "*.ts"\n---\ntop rule\n',
      'pkg/.cursor/rules/nested.mdc': '---\nglobs: "*.ts"\n---\nnested rule\n',
    })
    const found = await discoverInstructions({ cwd: base, home: await emptyHome(), mode: 'cursor' })
    expect(found.onDemand.map((f) => [f.path, f.when])).toEqual([
      [join(base, '.cursor/rules/top.mdc'), 'when the agent reads a file matching *.ts'],
      [
        join(base, 'pkg/.cursor/rules/nested.mdc'),
        'when the agent reads a file matching *.ts (relative to pkg)',
      ],
    ])
  })

  it('codex, pi and sysprompt load nothing on demand', async () => {
    const { base, home } = await repo()
    for (const mode of ['codex', 'pi', 'sysprompt'] as const) {
      const found = await discoverInstructions({
        cwd: base,
        home,
        mode,
        fsRoot: base,
        paths: ['src/api/x.ts'],
      })
      expect(found.onDemand).toEqual([])
      expect(found.lateBound).toEqual([])
    }
  })

  it('fires for paths under the directory and only those (property)', () => {
    const segment = fc.stringMatching(/^[a-z]{1,6}$/)
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.array(segment, { maxLength: 4 }),
        (dir, rest) => {
          const root = join('/', ...dir)
          const inside = join(root, ...rest, 'file.ts')
          expect(fires({ kind: 'under', dir: root }, inside)).toBe(true)
          expect(fires({ kind: 'under', dir: root }, join(`${root}x`, 'file.ts'))).toBe(false)
          expect(fires({ kind: 'under', dir: root }, join('/', 'elsewhere', ...rest, 'file.ts'))).toBe(
            root === '/elsewhere' || root.startsWith('/elsewhere/') ? inside.startsWith(root) : false,
          )
        },
      ),
    )
  })

  it('matches path-rule globs relative to their base, dot files included', () => {
    const trigger = { kind: 'matches' as const, globs: ['src/**/*.ts', './docs/*.md'], base: '/p' }
    expect(fires(trigger, '/p/src/a/b.ts')).toBe(true)
    expect(fires(trigger, '/p/src/.hidden/b.ts')).toBe(true)
    expect(fires(trigger, '/p/docs/x.md')).toBe(true)
    expect(fires(trigger, '/p/lib/b.ts')).toBe(false)
    expect(fires(trigger, '/q/src/b.ts')).toBe(false)
  })
})
