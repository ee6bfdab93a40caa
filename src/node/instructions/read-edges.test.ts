import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { type FileSystemAdapter, nodeAdapters } from '../adapters.js'
import { discoverInstructions } from './discover.js'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'
import { findImportLines } from './imports.js'

// The edges of reading an instruction file and its import lines: what a
// file that cannot be read is reported as (in the diagnostics and in the
// explanation of the file), which lines are imports, and how an imported
// text takes its line's place.

afterAll(removeFixtures)

/** The real adapter, but reading `path` fails with the error code `code`, as a file that cannot be read or that vanished would. */
function failing(path: string, code: 'EACCES' | 'ENOENT'): FileSystemAdapter {
  const real = nodeAdapters().fs
  return {
    ...real,
    async readFile(p, maxBytes) {
      if (p === path) throw Object.assign(new Error(`${code}: cannot open '${p}'`), { code })
      return real.readFile(p, maxBytes)
    },
  }
}

async function project(entries: Parameters<typeof fixtureTree>[0], fail?: 'EACCES' | 'ENOENT') {
  const repo = await fixtureTree({ '.git': { dir: true }, ...entries })
  const fs = fail === undefined ? undefined : failing(join(repo, 'AGENTS.md'), fail)
  const options = { cwd: repo, home: await emptyHome(), ...(fs === undefined ? {} : { fs }) }
  const found = await discoverInstructions(options)
  const explained = await explainInstructions({ ...options, file: 'AGENTS.md' })
  return { repo, found, explained }
}

describe('an instruction file that cannot be read', () => {
  it('a link out of the project: a warning that says how to fix it, and the file explained as outside the root', async () => {
    const outside = await fixtureTree({ 'rules.md': 'Outside.\n' })
    const { repo, found, explained } = await project({ 'AGENTS.md': { link: join(outside, 'rules.md') } })
    expect(found.files).toEqual([])
    expect(found.diagnostics).toEqual([
      {
        code: 'outside-root',
        severity: 'warning',
        message: `AGENTS.md: links to ${join(outside, 'rules.md')}, outside the project; it was not read. Replace the link with the file itself.`,
        path: join(repo, 'AGENTS.md'),
      },
    ])
    expect(explained).toEqual({
      file: join(repo, 'AGENTS.md'),
      status: 'skipped',
      code: 'outside-root',
      reason: `not read: links to ${join(outside, 'rules.md')}, outside the project`,
    })
  })

  it('a file that vanishes between the walk and the read: skipped as missing, with no warning', async () => {
    const { repo, found, explained } = await project({ 'AGENTS.md': 'Rules.\n' }, 'ENOENT')
    expect(found.files).toEqual([])
    expect(found.diagnostics).toEqual([])
    expect(explained).toEqual({
      file: join(repo, 'AGENTS.md'),
      status: 'skipped',
      code: 'missing',
      reason: 'AGENTS.md disappeared or is a dangling link',
    })
  })

  it('a file it may not read: a warning, and the file explained as unreadable with the cause', async () => {
    const { repo, found, explained } = await project({ 'AGENTS.md': 'Rules.\n' }, 'EACCES')
    expect(found.diagnostics).toEqual([
      expect.objectContaining({
        code: 'unreadable',
        message: 'AGENTS.md cannot be read: permission denied; it was skipped.',
      }),
    ])
    expect(explained).toEqual({
      file: join(repo, 'AGENTS.md'),
      status: 'skipped',
      code: 'unreadable',
      reason: 'AGENTS.md cannot be read: permission denied',
    })
  })

  it('an import through a link out of the project names the root it lies outside', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const { repo, found } = await project({
      'AGENTS.md': 'Top\n@link.md\n',
      'link.md': { link: join(outside, 'secret.md') },
    })
    expect(found.text).not.toContain('SECRET')
    expect(found.diagnostics.map((d) => d.message)).toEqual([
      `AGENTS.md imports link.md, which lies outside ${repo}; it was not read. Move the file inside the project.`,
    ])
  })
})

describe('import lines', () => {
  it('a fence closes only with its own character: ~~~ inside ``` (and ``` inside ~~~) is code', () => {
    expect(findImportLines('```\n~~~\n@a.md\n```\n@b.md\n').map((l) => l.target)).toEqual(['b.md'])
    expect(findImportLines('~~~~\n```\n@a.md\n~~~~\n@b.md').map((l) => l.target)).toEqual(['b.md'])
  })

  it('only a line-ending carriage return is dropped: one inside the line keeps it from being an import', () => {
    expect(findImportLines('@a\r.md\n@b.md\r\n@c.md\r').map((l) => l.target)).toEqual(['b.md', 'c.md'])
  })

  it('an imported text without a final line break keeps the line break of its import line', async () => {
    const { found } = await project({ 'AGENTS.md': 'Intro\n@docs/x.md\nOutro\n', 'docs/x.md': 'X' })
    expect(found.text).toBe('<!-- AGENTS.md -->\nIntro\nX\nOutro\n')
  })
})
