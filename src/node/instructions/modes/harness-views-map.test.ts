import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sourceMapProblems } from '../../../../test/source-map-check.test-helper.js'
import { sourceAt } from '../../../shared/source-map.js'
import { discoverInstructions } from '../discover.js'
import type { InstructionMode } from '../discovery-options.js'
import type { HarnessPart } from '../discovery-results.js'
import { emptyHome, fixtureTree } from '../fixtures.test-helper.js'

// The source map of each harness view (issue 32): every stretch of a part
// that came from a file names that file and line, through what the harness
// does to it on the way: a BOM removed, CRLF kept, comments left out,
// trimming, front matter dropped, imports inlined, a cut.
const TREE = {
  '.git': { dir: true },
  'AGENTS.md':
    '\uFEFF# Root rules\r\n\r\nUse pnpm for every install.\r\n@docs/style.md\r\nKeep commits small.\r\n',
  'CLAUDE.md':
    '<!-- maintainers: keep this short -->\n# Claude rules\n\nAlways run the linter first.\n<!-- a trailing note -->\n\n',
  'GEMINI.md': '\n\nGemini reads @./docs/style.md and then more text.\nLast Gemini line here.\n',
  'docs/style.md': 'Style line one is long.\nStyle line two is long.\n',
  '.cursor/rules/ts.mdc': '---\nalwaysApply: true\n---\n\nCursor rule body line.\n',
} as const

async function view(mode: InstructionMode, extra: { maxBytes?: number; harnessConfig?: string[] } = {}) {
  const repo = await fixtureTree(TREE)
  const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode, ...extra })
  return { repo, parts: found.harness.parts }
}

/** The file and line behind the first place `needle` stands in the part. */
function whereIs(
  part: HarnessPart,
  needle: string,
): { path: string; line: number; column: number } | undefined {
  const at = part.text.indexOf(needle)
  expect(at, `${needle} in the part`).toBeGreaterThanOrEqual(0)
  return sourceAt(part.text, part.sourceMap, at)
}

describe('harness view source maps', () => {
  it.each<InstructionMode>(['sysprompt', 'claude', 'gemini', 'codex', 'opencode', 'pi', 'cursor'])(
    '%s: every span is its file text at its line, and every file line sent is attributed',
    async (mode) => {
      const { repo, parts } = await view(mode)
      expect(parts.length).toBeGreaterThan(0)
      for (const part of parts)
        expect(await sourceMapProblems(part, [...part.files, join(repo, 'docs/style.md')])).toEqual([])
    },
  )

  it('sysprompt: an inlined import names the imported file; the importer goes on at its own line (CRLF, BOM)', async () => {
    const { repo, parts } = await view('sysprompt')
    const part = parts[0]!
    expect(whereIs(part, 'Use pnpm')).toEqual({ path: join(repo, 'AGENTS.md'), line: 3, column: 1 })
    expect(whereIs(part, 'Style line two')).toEqual({ path: join(repo, 'docs/style.md'), line: 2, column: 1 })
    expect(whereIs(part, 'Keep commits')).toEqual({ path: join(repo, 'AGENTS.md'), line: 5, column: 1 })
    // The header line is sysprompt's own.
    expect(whereIs(part, '<!-- AGENTS.md -->')).toBeUndefined()
  })

  it('claude: lines after a left-out comment keep their own line numbers; the framing is the harness own', async () => {
    const { repo, parts } = await view('claude')
    const part = parts[0]!
    expect(part.text).not.toContain('maintainers')
    expect(whereIs(part, '# Claude rules')).toEqual({ path: join(repo, 'CLAUDE.md'), line: 2, column: 1 })
    expect(whereIs(part, 'Always run')).toEqual({ path: join(repo, 'CLAUDE.md'), line: 4, column: 1 })
    expect(whereIs(part, 'Contents of')).toBeUndefined()
  })

  it('gemini: a reference inside a line is replaced by the import; the rest of the line keeps its column', async () => {
    const { repo, parts } = await view('gemini')
    const part = parts.find((p) => p.placement === 'first-user-message')!
    expect(whereIs(part, 'Gemini reads')).toEqual({ path: join(repo, 'GEMINI.md'), line: 3, column: 1 })
    expect(whereIs(part, 'Style line one')).toEqual({ path: join(repo, 'docs/style.md'), line: 1, column: 1 })
    expect(whereIs(part, ' and then more')).toEqual({ path: join(repo, 'GEMINI.md'), line: 3, column: 30 })
    expect(whereIs(part, '<!-- Imported from')).toBeUndefined()
  })

  it('cursor: a rule body maps past its front matter', async () => {
    const { repo, parts } = await view('cursor')
    expect(whereIs(parts[0]!, 'Cursor rule body')).toEqual({
      path: join(repo, '.cursor/rules/ts.mdc'),
      line: 5,
      column: 1,
    })
  })

  it('a cut keeps the map of what was kept; the omission notice is sysprompt own', async () => {
    const { repo, parts } = await view('sysprompt', { maxBytes: 60 })
    const part = parts[0]!
    expect(part.text).toContain('omitted')
    expect(await sourceMapProblems(part, [join(repo, 'AGENTS.md')])).toEqual([])
    expect(whereIs(part, 'omitted')).toBeUndefined()
    const last = part.sourceMap.at(-1)!
    expect(part.text.slice(last.end)).toContain('omitted')
  })
})
