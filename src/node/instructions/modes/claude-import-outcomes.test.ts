import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, type FixtureEntry, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

const APPROVED = 'hasClaudeMdExternalIncludesApproved=true'
const APPROVAL_SOURCE = '--harness-config hasClaudeMdExternalIncludesApproved'

/** A repository at `repo/` (cwd `repo/pkg`) with a file outside it, and a home of its own. */
async function project(files: Record<string, FixtureEntry>, homeFiles: Record<string, string> = {}) {
  const base = await fixtureTree({
    'repo/.git': { dir: true },
    'outside.md': 'outside the project\n',
    ...files,
  })
  const home = await fixtureTree(homeFiles)
  const repo = join(base, 'repo')
  return { base, repo, home, cwd: join(repo, 'pkg') }
}

describe('claude mode: imports the user approved', () => {
  it('reads an approved import outside cwd but inside the project, and says the approval decided it', async () => {
    const { repo, home, cwd } = await project({
      'repo/shared.md': 'shared\n',
      'repo/pkg/CLAUDE.md': '@../shared.md\n@near.md\n@../../outside.md\n',
      'repo/pkg/near.md': 'near\n',
    })
    const options = { cwd, home, mode: 'claude' as const, fsRoot: repo, harnessConfig: [APPROVED] }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([
      join(cwd, 'CLAUDE.md'),
      join(repo, 'shared.md'),
      join(cwd, 'near.md'),
    ])
    expect(await explainInstructions({ ...options, file: join(repo, 'shared.md') })).toMatchObject({
      code: 'included',
      reason: `loaded as its own block (imported by pkg/CLAUDE.md), file 2 in load order (decided by hasClaudeMdExternalIncludesApproved (${APPROVAL_SOURCE}))`,
    })
    expect(await explainInstructions({ ...options, file: join(cwd, 'near.md') })).toMatchObject({
      code: 'included',
      reason: 'loaded as its own block (imported by pkg/CLAUDE.md), file 3 in load order',
    })
  })

  it('still never reads an approved import outside the project root, and says so', async () => {
    const { base, repo, home, cwd } = await project({ 'repo/pkg/CLAUDE.md': '@../../outside.md\n' })
    const options = { cwd, home, mode: 'claude' as const, fsRoot: repo, harnessConfig: [APPROVED] }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([join(cwd, 'CLAUDE.md')])
    expect(found.diagnostics).toEqual([
      {
        code: 'import-outside-root',
        severity: 'warning',
        message: `pkg/CLAUDE.md:1 imports ../outside.md, outside the project root ${repo}; it is approved (${APPROVAL_SOURCE}), but nothing outside the project is read.`,
        path: join(base, 'outside.md'),
        site: { path: join(cwd, 'CLAUDE.md'), line: 1, column: 1 },
      },
    ])
    expect(await explainInstructions({ ...options, file: join(base, 'outside.md') })).toEqual({
      file: join(base, 'outside.md'),
      status: 'skipped',
      code: 'outside-root',
      reason: `imported by pkg/CLAUDE.md but outside the project root ${repo}`,
      profile: expect.any(String),
    })
  })
})

describe('claude mode: imports of the global file', () => {
  const globalFiles = {
    '.claude/CLAUDE.md': 'global\n@~/.claude/extra.md\n',
    '.claude/extra.md': 'extra\n@../notes.md\n',
    'notes.md': 'notes in the home directory\n',
  }

  it('follows ~/ imports inside ~/.claude, importing further as global files: nothing outside ~/.claude', async () => {
    const { repo, home, cwd } = await project({ 'repo/pkg/CLAUDE.md': 'pkg\n' }, globalFiles)
    const options = { cwd, home, mode: 'claude' as const, fsRoot: repo }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([
      join(home, '.claude/CLAUDE.md'),
      join(home, '.claude/extra.md'),
      join(cwd, 'CLAUDE.md'),
    ])
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['import-outside-root', join(home, 'notes.md')],
    ])
    expect(await explainInstructions({ ...options, file: join(home, '.claude/extra.md') })).toMatchObject({
      code: 'included',
      reason: 'loaded as its own block (imported by ~/.claude/CLAUDE.md), file 2 in load order',
    })
  })

  it('takes no project approval for a global import', async () => {
    const { repo, home, cwd } = await project({}, globalFiles)
    const options = { cwd, home, mode: 'claude' as const, fsRoot: repo, harnessConfig: [APPROVED] }
    const found = await discoverInstructions(options)
    const claudeDir = join(home, '.claude')
    expect(found.diagnostics).toEqual([
      {
        code: 'import-outside-root',
        severity: 'warning',
        message: `~/.claude/extra.md:2 imports ~/notes.md, outside ${claudeDir}; Claude Code drops such an import unless approved (hasClaudeMdExternalIncludesApproved; --harness-config hasClaudeMdExternalIncludesApproved=true).`,
        path: join(home, 'notes.md'),
        site: { path: join(claudeDir, 'extra.md'), line: 2, column: 1 },
      },
    ])
    expect(await explainInstructions({ ...options, file: join(home, 'notes.md') })).toMatchObject({
      code: 'outside-cwd',
      reason: `imported by ~/.claude/extra.md but outside ${claudeDir}, and such imports need approval`,
    })
    expect(await explainInstructions({ ...options, file: join(claudeDir, 'extra.md') })).toMatchObject({
      reason: 'loaded as its own block (imported by ~/.claude/CLAUDE.md), file 2 in load order',
    })
  })
})

describe('claude mode: imports that cannot be read or go too far', () => {
  it('warns of a missing import (Claude Code skips it silently) and of one through a link out of cwd, at the reference', async () => {
    const { repo, home, cwd } = await project({
      'repo/pkg/CLAUDE.md': '@gone.md\n@link.md\n',
      'repo/pkg/link.md': { link: '../../outside.md' },
    })
    const options = { cwd, home, mode: 'claude' as const, fsRoot: repo }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([join(cwd, 'CLAUDE.md')])
    expect(found.diagnostics).toEqual([
      {
        code: 'import-missing',
        severity: 'warning',
        message:
          'pkg/CLAUDE.md:1: `@gone.md` names pkg/gone.md, which does not exist; Claude Code skips it silently.',
        path: join(cwd, 'gone.md'),
        site: { path: join(cwd, 'CLAUDE.md'), line: 1, column: 1 },
      },
      {
        code: 'import-outside-root',
        severity: 'warning',
        message: `pkg/CLAUDE.md:2: \`@link.md\` names pkg/link.md, which lies outside ${cwd}; it was skipped.`,
        path: join(cwd, 'link.md'),
        site: { path: join(cwd, 'CLAUDE.md'), line: 2, column: 1 },
      },
    ])
    expect(await explainInstructions({ ...options, file: join(cwd, 'gone.md') })).toMatchObject({
      code: 'missing',
      reason: 'imported by pkg/CLAUDE.md (line 1), but it does not exist',
    })
    expect(await explainInstructions({ ...options, file: join(cwd, 'link.md') })).toMatchObject({
      code: 'outside-root',
      reason: `imported by pkg/CLAUDE.md (line 2), but it lies outside ${cwd}`,
    })
  })

  it('explains an import 6 deep and a link that closes a cycle in words', async () => {
    const files: Record<string, string> = {
      'repo/pkg/CLAUDE.md': '@l1.md\n@loop.md\n',
      'repo/pkg/loop.md': 'loop\n@again.md\n',
    }
    for (let i = 1; i <= 6; i++) files[`repo/pkg/l${i}.md`] = `@l${i + 1}.md\n`
    const { repo, home, cwd } = await project({
      ...files,
      'repo/pkg/again.md': { link: 'loop.md' },
    })
    const options = { cwd, home, mode: 'claude' as const, fsRoot: repo }
    const found = await discoverInstructions(options)
    expect(found.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['import-too-deep', 'pkg/l5.md:1 imports pkg/l6.md deeper than 5 levels; Claude Code stops there.'],
      [
        'import-cycle',
        'pkg/loop.md:2 imports pkg/again.md, which is already in its import chain; not loaded again.',
      ],
    ])
    expect(await explainInstructions({ ...options, file: join(cwd, 'l6.md') })).toMatchObject({
      code: 'import-too-deep',
      reason: 'imported by pkg/l5.md deeper than 5 levels',
    })
    expect(await explainInstructions({ ...options, file: join(cwd, 'again.md') })).toMatchObject({
      code: 'import-cycle',
      reason: 'its import by pkg/loop.md closes a cycle, so it is not loaded again',
    })
  })

  it('drops an import of an import outside cwd as it drops a direct one', async () => {
    const { base, repo, home, cwd } = await project({
      'repo/pkg/CLAUDE.md': '@a.md\n',
      'repo/pkg/a.md': 'a\n@../../outside.md\n',
    })
    const found = await discoverInstructions({ cwd, home, mode: 'claude', fsRoot: repo })
    expect(found.files.map((f) => f.path)).toEqual([join(cwd, 'CLAUDE.md'), join(cwd, 'a.md')])
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['import-outside-cwd', join(base, 'outside.md')],
    ])
  })

  it('follows no import when imports are off', async () => {
    const base = await fixtureTree({ '.git': { dir: true }, 'CLAUDE.md': '@a.md\n', 'a.md': 'a\n' })
    const found = await discoverInstructions({
      cwd: base,
      home: await emptyHome(),
      mode: 'claude',
      fsRoot: base,
      imports: false,
    })
    expect(found.files.map((f) => f.path)).toEqual([join(base, 'CLAUDE.md')])
    expect(found.diagnostics).toEqual([])
  })
})
