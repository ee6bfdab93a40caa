import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bar, clip, type Io, painter, percent, table, tokenLabel, useColor, width } from './output.js'
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
