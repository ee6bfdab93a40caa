import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

// Amp includes a file mentioned on a line of its own after the mentioning
// file; what it cannot include is left as text with a diagnostic, and a
// mention never reads outside the project (or, from the global file, outside
// its directory) nor a secret-bearing file.
describe('amp mode mentions', () => {
  it('includes what a file mentions after it, and refuses an escape, a link out, a secret and a missing file', async () => {
    const outside = await fixtureTree({ 'secret.md': 'SECRET\n' })
    const base = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'top\n@doc/style.md\n@../escape.md\n@link.md\n@.env\n@missing.md\n',
      'doc/style.md': 'style\n',
      'link.md': { link: join(outside, 'secret.md') },
      '.env': 'KEY=1\n',
    })
    const home = await fixtureTree({
      '.config/amp/AGENTS.md': 'global\n@mine.md\n@../../x.md\n',
      '.config/amp/mine.md': 'mine\n',
      'x.md': 'OUTSIDE THE GLOBAL DIRECTORY\n',
    })
    const found = await discoverInstructions({ cwd: base, home, mode: 'amp' })
    expect(found.text).toBe(
      '<!-- ~/.config/amp/AGENTS.md -->\nglobal\n@mine.md\n@../../x.md\n\n' +
        '<!-- ~/.config/amp/mine.md (mentioned by ~/.config/amp/AGENTS.md) -->\nmine\n\n' +
        '<!-- AGENTS.md -->\ntop\n@doc/style.md\n@../escape.md\n@link.md\n@.env\n@missing.md\n\n' +
        '<!-- doc/style.md (mentioned by AGENTS.md) -->\nstyle\n',
    )
    const out = 'leads outside the project (a symbolic link or `..`), so it was not read'
    const refused = (from: string, target: string, why: string, path: string) => ({
      code: 'import-missing',
      severity: 'info',
      message: `${from} mentions @${target}, which Amp cannot include: it ${why}.`,
      path,
    })
    expect(found.diagnostics).toEqual([
      refused('~/.config/amp/AGENTS.md', '../../x.md', out, join(home, 'x.md')),
      refused('AGENTS.md', '../escape.md', out, join(base, '../escape.md')),
      refused('AGENTS.md', 'link.md', out, join(base, 'link.md')),
      refused(
        'AGENTS.md',
        '.env',
        'is on the deny-list of secret-bearing files (`.env`); pass --allow-file (`allowFiles`) to read it anyway',
        join(base, '.env'),
      ),
      refused('AGENTS.md', 'missing.md', 'does not exist (or is a dangling link)', join(base, 'missing.md')),
    ])
  })
})
