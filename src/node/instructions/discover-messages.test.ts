import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from './discover.js'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'
import { READ_LIMIT } from './read.js'

afterAll(removeFixtures)

// The words a user acts on, pinned whole: what each diagnostic and each
// explanation says about a cut, a drop, a link leaving the project and an
// oversized file, with the figures and the setting to change.

describe('the nearest-first budget says what it cut, where and what to change', () => {
  async function layered() {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root line one\nroot line two\nroot line three\n@notes.md\n',
      'notes.md': 'notes\n',
      'docs/AGENTS.md': 'docs line one\ndocs line two\n',
      'docs/api/AGENTS.md': 'api rules, kept whole\n',
    })
    return { repo, cwd: join(repo, 'docs/api'), home: await emptyHome() }
  }

  it('speaks of several files left out in the plural', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root rules\n@a.md\n@b.md\n',
      'a.md': 'a\n',
      'b.md': 'b\n',
    })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), maxBytes: 4 })
    expect(found.diagnostics.filter((d) => d.code === 'over-budget').map((d) => d.message)).toEqual([
      'a.md, b.md never reach the model: the 4-byte nearest-first budget (maxBytes) ran out before them; a notice in the text marks the cut. Raise maxBytes or shorten the files nearer the working directory.',
    ])
  })

  it('names the bytes cut, the line the model stops at and the import that never arrives', async () => {
    const { repo, cwd, home } = await layered()
    const options = { cwd, home, maxBytes: 64 }
    const found = await discoverInstructions(options)
    expect(found.diagnostics).toEqual([
      {
        code: 'truncated',
        severity: 'warning',
        message:
          '36 bytes of AGENTS.md were omitted by the 64-byte budget (a notice marks the cut). Raise maxBytes or shorten the files nearer the working directory.',
        path: join(repo, 'AGENTS.md'),
        site: { path: join(repo, 'AGENTS.md'), line: 2, column: 1 },
      },
      {
        code: 'over-budget',
        severity: 'warning',
        message:
          'notes.md never reaches the model: the 64-byte nearest-first budget (maxBytes) ran out before it; a notice in the text marks the cut. Raise maxBytes or shorten the files nearer the working directory.',
      },
    ])
    const why = (file: string) => explainInstructions({ ...options, file: join(repo, file) })
    expect(await why('AGENTS.md')).toEqual({
      file: join(repo, 'AGENTS.md'),
      status: 'truncated',
      code: 'truncated',
      reason:
        'the first 14 of its bytes were kept and 36 cut by the 64-byte cap (nearest-first: files nearer the working directory come first)',
    })
    expect(await why('notes.md')).toEqual({
      file: join(repo, 'notes.md'),
      status: 'skipped',
      code: 'over-budget',
      reason:
        "inlined into AGENTS.md, whose text the 64-byte cap cut (nearest-first: files nearer the working directory come first) before this file's text, so none of it reached the prompt",
    })
    expect((await why('docs/AGENTS.md')).reason).toBe('loaded from docs, file 2 in load order')
    expect((await why('docs/api/AGENTS.md')).reason).toBe('loaded from docs/api, file 3 in load order')
  })

  it('says none was kept of a file cut to nothing, and reports it at its first line', async () => {
    const { repo, cwd, home } = await layered()
    const options = { cwd, home, maxBytes: 30 }
    const found = await discoverInstructions(options)
    expect(found.diagnostics.map((d) => [d.code, d.site])).toEqual([
      ['truncated', { path: join(repo, 'AGENTS.md'), line: 1, column: 1 }],
      ['truncated', { path: join(repo, 'docs/AGENTS.md'), line: 1, column: 1 }],
      ['over-budget', undefined],
    ])
    expect(found.diagnostics[1]!.message).toBe(
      '28 bytes of docs/AGENTS.md were omitted by the 30-byte budget (a notice marks the cut). Raise maxBytes or shorten the files nearer the working directory.',
    )
    const why = await explainInstructions({ ...options, file: join(repo, 'docs/AGENTS.md') })
    expect(why.reason).toBe(
      'none of its bytes were kept and 28 cut by the 30-byte cap (nearest-first: files nearer the working directory come first)',
    )
  })

  it('groups the digits of large figures', async () => {
    const line = `${'x'.repeat(99)}\n`
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': line.repeat(30) })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), maxBytes: 1000 })
    expect(found.diagnostics[0]!.message).toBe(
      '2 000 bytes of AGENTS.md were omitted by the 1 000-byte budget (a notice marks the cut). Raise maxBytes or shorten the files nearer the working directory.',
    )
    expect(found.text.endsWith(`${line}[… 2 000 bytes of AGENTS.md omitted …]\n`)).toBe(true)
  })
})

describe("Codex's cap says it cuts silently, root first, and which setting to raise", () => {
  async function codexRepo() {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root line one\nroot line two\n',
      'pkg/AGENTS.md': 'pkg rules\n',
    })
    const home = await fixtureTree({ '.codex/AGENTS.md': 'global codex rules\n' })
    return { repo, home, cwd: join(repo, 'pkg') }
  }

  it('cuts the root file at a byte, drops the rest and names the setting that set the cap', async () => {
    const { repo, home, cwd } = await codexRepo()
    const options = { cwd, home, mode: 'codex' as const, harnessConfig: ['project_doc_max_bytes=20'] }
    const found = await discoverInstructions(options)
    // The global file is not counted against the cap.
    expect(found.text).toBe(
      '<!-- ~/.codex/AGENTS.md -->\nglobal codex rules\n\n<!-- AGENTS.md -->\nroot line one\nroot l\n',
    )
    expect(found.preload).toBe('truncated')
    expect(found.diagnostics).toEqual([
      {
        code: 'silently-truncated',
        severity: 'warning',
        message:
          'Codex would cut AGENTS.md silently: its last 8 bytes never reach the model. Raise project_doc_max_bytes or shorten the files nearer the root.',
        path: join(repo, 'AGENTS.md'),
        site: { path: join(repo, 'AGENTS.md'), line: 2, column: 7 },
      },
      {
        code: 'over-budget',
        severity: 'warning',
        message:
          "pkg/AGENTS.md never reaches the model: Codex's 20-byte project_doc_max_bytes was spent before it. Raise it or shorten the files nearer the root.",
      },
    ])
    const why = (file: string) => explainInstructions({ ...options, file: join(repo, file) })
    expect((await why('AGENTS.md')).reason).toBe(
      'the first 20 of its bytes were kept and 8 cut by the 20-byte cap (Codex cuts silently, root first; set by --harness-config project_doc_max_bytes)',
    )
    expect(await why('pkg/AGENTS.md')).toEqual({
      file: join(repo, 'pkg/AGENTS.md'),
      status: 'skipped',
      code: 'over-budget',
      reason: 'the 20-byte cap was spent on the files before it (root first), so it was left out',
      // The version profile the answer holds for, in words.
      profile: `codex ${found.profile!.version} (${found.profile!.range}: ${found.profile!.changes})`,
    })
    expect(await explainInstructions({ ...options, file: join(home, '.codex/AGENTS.md') })).toMatchObject({
      status: 'included',
      reason: 'loaded as global instructions, file 1 in load order',
    })
  })

  it('does not name a setting when the caller set the cap', async () => {
    const { repo, home, cwd } = await codexRepo()
    const why = await explainInstructions({
      cwd,
      home,
      mode: 'codex',
      maxBytes: 20,
      file: join(repo, 'AGENTS.md'),
    })
    expect(why.reason).toBe(
      'the first 20 of its bytes were kept and 8 cut by the 20-byte cap (Codex cuts silently, root first)',
    )
  })

  it('says a zero cap turns the project files off, and keeps the global file', async () => {
    const { repo, home, cwd } = await codexRepo()
    const found = await discoverInstructions({ cwd, home, mode: 'codex', maxBytes: 0 })
    expect(found.text).toBe('<!-- ~/.codex/AGENTS.md -->\nglobal codex rules\n')
    expect(found.preload).toBe('truncated')
    expect(found.diagnostics).toEqual([
      {
        code: 'over-budget',
        severity: 'warning',
        message:
          "AGENTS.md, pkg/AGENTS.md never reach the model: a project_doc_max_bytes of 0 turns Codex's project files off.",
      },
    ])
    const why = await explainInstructions({
      cwd,
      home,
      mode: 'codex',
      maxBytes: 0,
      file: join(repo, 'AGENTS.md'),
    })
    expect(why.reason).toBe(
      'the 0-byte cap was spent on the files before it (root first), so it was left out',
    )
  })
})

describe('files that cannot be read whole, or not at all', () => {
  it('reads the first MiB of an oversized file, marks it truncated and says to split it', async () => {
    const text = `${'a'.repeat(READ_LIMIT)}tail\n`
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': text })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), maxBytes: 2 * READ_LIMIT })
    expect(found.files).toMatchObject([
      { path: join(repo, 'AGENTS.md'), bytes: text.length, truncated: true },
    ])
    expect(found.text).not.toContain('tail')
    expect(found.preload).toBe('truncated')
    expect(found.diagnostics).toEqual([
      {
        code: 'read-limit',
        severity: 'warning',
        message:
          'AGENTS.md is larger than 1048576 bytes; only its first 1048576 bytes were read. Split it into smaller files.',
        path: join(repo, 'AGENTS.md'),
      },
    ])
  })

  it('names the root a link escapes and says to replace the link', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': { link: join(outside, 'secret.md') },
    })
    const options = { cwd: repo, home: await emptyHome() }
    const found = await discoverInstructions(options)
    expect(found.diagnostics).toEqual([
      {
        code: 'outside-root',
        severity: 'warning',
        message: `AGENTS.md: links to ${join(outside, 'secret.md')}, outside the project; it was not read. Replace the link with the file itself.`,
        path: join(repo, 'AGENTS.md'),
      },
    ])
    expect((await explainInstructions({ ...options, file: 'AGENTS.md' })).reason).toBe(
      `not read: links to ${join(outside, 'secret.md')}, outside the project`,
    )
  })

  it('reports a cwd outside the root with both paths and walks only cwd', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root\n',
      'docs/AGENTS.md': 'docs\n',
    })
    const found = await discoverInstructions({ cwd: repo, root: join(repo, 'docs'), home: await emptyHome() })
    expect(found.diagnostics).toEqual([
      {
        code: 'cwd-outside-root',
        severity: 'warning',
        message: `the working directory ${repo} is not inside the root ${join(repo, 'docs')}; only the working directory is walked. Pass a root that contains it.`,
        path: repo,
      },
    ])
  })
})
