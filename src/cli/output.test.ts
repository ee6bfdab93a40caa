import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { groupDigits } from '../compile/numbers.js'
import { renderMatrix } from './commands/matrix.js'
import {
  bar,
  clip,
  type Io,
  list,
  painter,
  paragraph,
  percent,
  table,
  tokenLabel,
  useColor,
  width,
  wrap,
} from './output.js'
import { sanitizeProse } from './sanitize.js'

const io = (isTTY: boolean, env: Record<string, string | undefined> = {}): Io => ({
  stdout: { write: () => true, isTTY },
  stderr: { write: () => true },
  env,
  cwd: '/',
})

describe('useColor', () => {
  it('colours only a terminal', () => {
    expect(useColor(io(true), undefined)).toBe(true)
    expect(useColor(io(false), undefined)).toBe(false)
  })

  it('never colours with NO_COLOR set to anything non-empty, or with --no-color', () => {
    expect(useColor(io(true, { NO_COLOR: '1' }), undefined)).toBe(false)
    expect(useColor(io(true, { NO_COLOR: '' }), undefined)).toBe(true)
    expect(useColor(io(true), false)).toBe(false)
  })
})

describe('painter', () => {
  it('writes ANSI codes only when colours are on, as the output stream prints them', () => {
    expect(sanitizeProse(painter(true)('red', 'x'))).toBe('\u001b[31mx\u001b[39m')
    expect(painter(false)('red', 'x')).toBe('x')
  })
})

describe('table', () => {
  it('aligns columns, numbers to the right, without trailing spaces', () => {
    const lines = table(
      [
        ['name', 'tokens'],
        ['a', '5'],
        ['longer', '1 234'],
      ],
      ['left', 'right'],
      painter(false),
    )
    expect(lines).toEqual(['name    tokens', 'a            5', 'longer   1 234'])
  })

  it('keeps columns aligned when cells are coloured', () => {
    const lines = table(
      [
        [{ text: 'a', tone: 'red' }, 'x'],
        ['bbb', 'y'],
      ],
      ['left', 'left'],
      painter(true),
    )
    const visible = lines.map((l) => sanitizeProse(l).replace(/\u001b\[\d+m/g, ''))
    expect(visible).toEqual(['a    x', 'bbb  y'])
  })

  it('shows escapes in cells and measures the columns as they print', () => {
    const lines = table(
      [
        ['\u001b[31mred.md', '1'],
        ['b\u202E.md', '2'],
      ],
      ['left', 'right'],
      painter(false),
    )
    expect(lines).toEqual(['\\x1b[31mred.md  1', 'b<U+202E>.md    2'])
  })
})

describe('bar', () => {
  it('draws eighths of a cell with Unicode blocks', () => {
    expect(bar(1, 4)).toBe('████')
    expect(bar(0.5, 4)).toBe('██')
    expect(bar(1 / 32, 4)).toBe('▏')
    expect(bar(0, 4)).toBe('')
  })

  it('shows a tiny non-zero share, and never exceeds its cells', () => {
    expect(bar(0.0001, 24)).toBe('▏')
    fc.assert(
      fc.property(
        fc.double({ min: -1, max: 2, noNaN: true }),
        fc.integer({ min: 1, max: 60 }),
        (f, cells) => {
          expect(width(bar(f, cells))).toBeLessThanOrEqual(cells)
        },
      ),
    )
  })
})

describe('numbers and text', () => {
  it('writes percentages with one decimal, 0% of nothing', () => {
    expect(percent(1, 8)).toBe('12.5%')
    expect(percent(1, 0)).toBe('0.0%')
  })

  it('clips to one line of at most the given width', () => {
    expect(clip('a\nb', 10)).toBe('a⏎b')
    expect(clip('a\u001b[2Kb', 20)).toBe('a\\x1b[2Kb')
    expect(clip('abcdefgh', 5)).toBe('abcd…')
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 40 }), (text, max) => {
        const out = clip(text, max)
        expect(width(out)).toBeLessThanOrEqual(Math.max(max, 1))
        expect(out).not.toMatch(/[\r\n]/)
      }),
    )
  })
})

describe('fitting the terminal', () => {
  it('wraps the last column at spaces so no line is wider than asked', () => {
    const reason = 'it has `paths:` and no working path was given: pass --path with a file the agent works on'
    const lines = table([['testing', 'out', reason]], ['left', 'left', 'left'], painter(false), 60)
    expect(lines.length).toBeGreaterThan(1)
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60)
    expect(lines.map((l) => l.slice('testing  out  '.length)).join(' ')).toBe(reason)
  })

  it('labels a count as an approximation unless the provider counts with that tokenizer', () => {
    expect(tokenLabel('o200k', 'openai')).toBe('o200k')
    expect(tokenLabel('o200k', 'anthropic')).toBe('o200k; an approximation for anthropic')
    expect(tokenLabel('estimate', 'openai')).toBe('estimate; an approximation for openai')
  })
})

describe('text for people (issue 31, finding 8)', () => {
  it('wraps at word boundaries and never inside a grouped number', () => {
    const text =
      'windsurf: 1 file at start, 2 579 tokens, 13 on demand; budget: 12 000 characters a rule file'
    for (let room = 10; room <= 90; room++) {
      const lines = wrap(text, room)
      expect(lines.join(' ')).toBe(text)
      expect(lines.some((l) => /^000\b/.test(l))).toBe(false)
    }
    expect(paragraph(text, 68)).toEqual([
      'windsurf: 1 file at start, 2 579 tokens, 13 on demand; budget:',
      '  12 000 characters a rule file',
    ])
  })

  it('keeps every grouped number whole at any width (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.nat({ max: 10_000_000 }).map(groupDigits), fc.stringMatching(/^[a-z]{1,12}$/)), {
          minLength: 1,
          maxLength: 20,
        }),
        fc.integer({ min: 1, max: 60 }),
        (parts, room) => {
          const lines = wrap(parts.join(' '), room)
          expect(lines.join(' ')).toBe(parts.join(' '))
          for (let i = 1; i < lines.length; i++)
            expect(`${lines[i - 1]}\n${lines[i]}`).not.toMatch(/(^|[^\d])\d{1,3}\n\d{3}(?!\d)/)
        },
      ),
    )
  })

  it('prints a list cell one item a line and cuts no path', () => {
    const long = 'pydantic_ai_slim/pydantic_ai/models/CLAUDE.md'
    const lines = table(
      [
        ['claude', 'src/app.ts', list(['pydantic_ai_slim/pydantic_ai/CLAUDE.md', long])],
        ['codex', 'src/app.ts', list([])],
      ],
      ['left', 'left', 'left'],
      painter(false),
      40,
    )
    expect(lines).toEqual([
      'claude  src/app.ts  pydantic_ai_slim/pydantic_ai/CLAUDE.md',
      `                    ${long}`,
      'codex   src/app.ts  —',
    ])
  })

  it('shows matrix rules by their path from the root, so two CLAUDE.md differ', () => {
    const text = renderMatrix(
      [
        {
          mode: 'claude',
          summary:
            'claude: 1 file at start, 3 629 tokens, 8 on demand, 0 on request; budget: 12 000 characters',
          budget: null,
          onDemand: 8,
          onRequest: [],
          rows: [
            {
              path: 'pydantic_ai_slim/pydantic_ai/models/openai.py',
              start: ['CLAUDE.md'],
              forPath: [
                'pydantic_ai_slim/pydantic_ai/CLAUDE.md',
                'pydantic_ai_slim/pydantic_ai/models/CLAUDE.md',
              ],
              tokens: { start: 3629, path: 2186, total: 5815 },
              cut: [],
              fires: [
                'pydantic_ai_slim/pydantic_ai/CLAUDE.md',
                'pydantic_ai_slim/pydantic_ai/models/CLAUDE.md',
              ],
            },
          ],
        },
      ],
      80,
      painter(false),
    )
    expect(text).toContain('\npydantic_ai_slim/pydantic_ai/models/openai.py\n  harness ')
    expect(text).toContain(
      '\n    fires  pydantic_ai_slim/pydantic_ai/CLAUDE.md\n           pydantic_ai_slim/pydantic_ai/models/CLAUDE.md\n',
    )
    expect(text).not.toContain('…')
    expect(text).not.toMatch(/12\n/)
  })

  it('puts matrix lists too wide for their label under it, and a path wider than the line alone on its line', () => {
    const deep = `${'deep/'.repeat(10)}CLAUDE.md`
    const row = {
      path: `${'deep/'.repeat(10)}app.ts`,
      start: ['CLAUDE.md'],
      forPath: ['a/CLAUDE.md', deep],
      tokens: { start: 12, path: 3_400, total: 3_412 },
      cut: [{ file: 'CLAUDE.md', line: 3, rule: 'a cap' }],
      fires: ['a/CLAUDE.md', deep],
    }
    const harness = {
      mode: 'claude' as const,
      summary: 'claude',
      budget: null,
      onDemand: 0,
      onRequest: [],
      rows: [row],
    }
    const lines = renderMatrix([harness], 40, painter(false)).split('\n')
    expect(lines.slice(2)).toEqual([
      row.path,
      '  harness  start  +path    tokens',
      '  claude       1      2  12+3 400',
      '    cut  CLAUDE.md:3',
      '    fires',
      '      a/CLAUDE.md',
      deep,
      '',
    ])
  })

  it('keeps a cut path that holds spaces whole when a matrix summary wraps', () => {
    const file = 'docs/team notes/CLAUDE.md'
    const row = {
      path: null,
      start: [file],
      forPath: [],
      tokens: { start: 9000, path: 0, total: 9000 },
      cut: [{ file, rule: 'the byte cap asked for' }],
      fires: [],
    }
    const summary = `claude: 1 file at start, 9 000 tokens, 0 on demand, 0 on request; cuts ${file}`
    const harness = {
      mode: 'claude' as const,
      summary,
      budget: null,
      onDemand: 0,
      onRequest: [],
      rows: [row],
    }
    for (let columns = 30; columns <= 100; columns++) {
      const text = renderMatrix([harness], columns, painter(false))
      const summaryLines = text.slice(0, text.indexOf('\n\n')).split('\n')
      expect(
        summaryLines.some((l) => l.includes(file)),
        String(columns),
      ).toBe(true)
    }
  })
})
