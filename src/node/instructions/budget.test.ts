import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { utf8Length } from '../../shared/hash.js'
import { cutAtLine, groupDigits, nearestFirst, omissionNotice, rootFirstSilent } from './budget.js'
import { discoverInstructions } from './discover.js'
import { explainInstructions } from './explain.js'
import { emptyHome, fixtureTree, removeFixtures } from './fixtures.test-helper.js'

afterAll(removeFixtures)

/** UTF-8 bytes counted by the platform's encoder, not by the code under test. */
const bytes = (text: string) => Buffer.byteLength(text, 'utf8')

// Instruction files as they are: lines of ASCII, accents, CJK and emoji
// (astral, with a joiner), ended by `\n` or `\r\n`, the last maybe unended.
const piece = fc.constantFrom('a', 'run the tests', ' ', 'é', 'ü', '—', '日本', '🙂', '👩\u200d💻', '𝄞', '#')
const line = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(''))
const instructionText = fc
  .tuple(fc.array(fc.tuple(line, fc.constantFrom('\n', '\r\n')), { maxLength: 8 }), line)
  .map(([lines, last]) => lines.map(([text, end]) => text + end).join('') + last)

/** The longest prefix of whole characters within `max` UTF-8 bytes. */
function bytePrefix(text: string, max: number): string {
  let out = ''
  for (const char of text) {
    if (bytes(out + char) > max) break
    out += char
  }
  return out
}

/** The text after `kept` up to and including its next `\n` (or to the end). */
function nextLine(text: string, kept: string): string {
  const newline = text.indexOf('\n', kept.length)
  return text.slice(kept.length, newline === -1 ? text.length : newline + 1)
}

describe('budget arithmetic', () => {
  it('cuts at a line boundary and groups digits in notices', () => {
    expect(cutAtLine('one\ntwo\nthree\n', 9)).toBe('one\ntwo\n')
    expect(cutAtLine('one\ntwo\n', 3)).toBe('')
    expect(cutAtLine('é\nx\n', 3)).toBe('é\n')
    expect(groupDigits(2118)).toBe('2 118')
    expect(groupDigits(1234567)).toBe('1 234 567')
    expect(omissionNotice(2118, 'docs/AGENTS.md')).toBe('[… 2 118 bytes of docs/AGENTS.md omitted …]')
  })

  it('keeps the nearest text whole first and never lets a farther text win bytes a nearer one lost', () => {
    const item = fc.record({
      text: fc.string({ unit: 'grapheme', maxLength: 60 }),
      distance: fc.integer({ min: 0, max: 4 }),
    })
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), fc.nat(300), (items, maxBytes) => {
        const cuts = nearestFirst(items, maxBytes)
        let total = 0
        cuts.forEach((cut, i) => {
          const text = items[i]!.text
          expect(text.startsWith(cut.kept)).toBe(true)
          expect(cut.kept === '' || cut.kept === text || cut.kept.endsWith('\n')).toBe(true)
          expect(utf8Length(cut.kept) + cut.omitted).toBe(utf8Length(text))
          total += utf8Length(cut.kept)
        })
        expect(total).toBeLessThanOrEqual(maxBytes)
        // Anything farther than a cut text (or as far, but earlier in load order) is cut entirely.
        cuts.forEach((cut, i) => {
          if (cut.omitted === 0) return
          cuts.forEach((other, j) => {
            const farther =
              items[j]!.distance > items[i]!.distance || (items[j]!.distance === items[i]!.distance && j < i)
            if (farther) expect(other.kept).toBe('')
          })
        })
      }),
    )
  })

  it('cuts multi-line, multi-byte text at the last line that fits, counting UTF-8 bytes', () => {
    fc.assert(
      fc.property(instructionText, fc.nat(120), (text, maxBytes) => {
        const kept = cutAtLine(text, maxBytes)
        expect(text.startsWith(kept)).toBe(true)
        expect(bytes(kept)).toBeLessThanOrEqual(maxBytes)
        if (kept === text) return
        // Ends at a line boundary, and the next whole line would not have fitted.
        expect(kept === '' || kept.endsWith('\n')).toBe(true)
        expect(bytes(kept + nextLine(text, kept))).toBeGreaterThan(maxBytes)
      }),
    )
  })

  it('reports the bytes a nearest-first cut omitted as UTF-8 bytes, cutting at lines', () => {
    const item = fc.record({ text: instructionText, distance: fc.integer({ min: 0, max: 3 }) })
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 5 }), fc.nat(200), (items, maxBytes) => {
        const cuts = nearestFirst(items, maxBytes)
        let left = maxBytes
        // Nearest first (ties: the later item), each text whole while it fits; the first that does not is cut at a line.
        const order = items.map((_, i) => i).sort((a, b) => items[a]!.distance - items[b]!.distance || b - a)
        for (const i of order) {
          const { text } = items[i]!
          const cut = cuts[i]!
          expect(cut.omitted).toBe(bytes(text) - bytes(cut.kept))
          if (bytes(text) <= left) {
            expect(cut).toEqual({ kept: text, omitted: 0 })
            left -= bytes(text)
          } else {
            expect(cut.kept).toBe(cutAtLine(text, left))
            expect(cut.omitted).toBeGreaterThan(0)
            left = 0
          }
        }
      }),
    )
  })

  it('spends Codex caps on multi-byte text at character boundaries, counting UTF-8 bytes', () => {
    fc.assert(
      fc.property(fc.array(instructionText, { maxLength: 4 }), fc.nat(120), (texts, maxBytes) => {
        const cuts = rootFirstSilent(texts, maxBytes)
        let left = maxBytes
        cuts.forEach((cut, i) => {
          const text = texts[i]!
          if (cut === null) {
            // Dropped: nothing left, or nothing but blanks fitted.
            expect(left === 0 || bytePrefix(text, left).trim() === '').toBe(true)
            return
          }
          expect(text.startsWith(cut.kept)).toBe(true)
          expect(cut.omitted).toBe(bytes(text) - bytes(cut.kept))
          expect(bytes(cut.kept)).toBeLessThanOrEqual(left)
          // Never half a character: the kept text encodes and decodes to itself.
          expect(new TextDecoder().decode(new TextEncoder().encode(cut.kept))).toBe(cut.kept)
          expect(cut.kept).toBe(bytePrefix(text, left))
          left -= bytes(cut.kept)
        })
      }),
    )
  })

  it('treats a negative cap as none left, and breaks distance ties toward the later text', () => {
    expect(nearestFirst([{ text: 'a\n', distance: 0 }], -5)).toEqual([{ kept: '', omitted: 2 }])
    expect(rootFirstSilent(['a'], -5)).toEqual([null])
    expect(
      nearestFirst(
        [
          { text: 'first\n', distance: 1 },
          { text: 'second\n', distance: 1 },
        ],
        7,
      ),
    ).toEqual([
      { kept: '', omitted: 6 },
      { kept: 'second\n', omitted: 0 },
    ])
    // Exactly at the cap is kept whole; one byte less cuts.
    expect(nearestFirst([{ text: 'ab\ncd\n', distance: 0 }], 6)).toEqual([{ kept: 'ab\ncd\n', omitted: 0 }])
    expect(nearestFirst([{ text: 'ab\ncd\n', distance: 0 }], 5)).toEqual([{ kept: 'ab\n', omitted: 3 }])
    expect(cutAtLine('ab\ncd', 5)).toBe('ab\ncd')
    expect(cutAtLine('ab\ncd', 4)).toBe('ab\n')
    expect(rootFirstSilent(['日本'], 3)).toEqual([{ kept: '日', omitted: 3 }])
    expect(rootFirstSilent(['é🙂'], 5)).toEqual([{ kept: 'é', omitted: 4 }])
    expect(rootFirstSilent(['é🙂'], 6)).toEqual([{ kept: 'é🙂', omitted: 0 }])
    expect(rootFirstSilent(['ab', 'cd'], 2)).toEqual([{ kept: 'ab', omitted: 0 }, null])
  })

  it('counts each character of a Codex cut at its UTF-8 width, on both sides of every width boundary', () => {
    // The last code point of each width and the first of the next: U+007F/U+0080, U+07FF/U+0800, U+FFFF/U+10000.
    for (const char of ['\u007f', '\u0080', '\u07ff', '\u0800', '\uffff', '\u{10000}']) {
      const width = bytes(char)
      expect(rootFirstSilent([char], width), `U+${char.codePointAt(0)!.toString(16)}`).toEqual([
        { kept: char, omitted: 0 },
      ])
      expect(rootFirstSilent([`a${char}`], width)).toEqual([{ kept: 'a', omitted: width }])
      // What is left after it is the cap less its true width.
      expect(rootFirstSilent([char, 'bcdef'], width + 2)).toEqual([
        { kept: char, omitted: 0 },
        { kept: 'bc', omitted: 3 },
      ])
    }
  })

  it('spends Codex caps root first, silently, dropping what is left over', () => {
    expect(rootFirstSilent(['aaaa', 'bbbb', 'cccc'], 6)).toEqual([
      { kept: 'aaaa', omitted: 0 },
      { kept: 'bb', omitted: 2 },
      null,
    ])
    expect(rootFirstSilent(['  \n', 'x'], 2)).toEqual([null, { kept: 'x', omitted: 0 }])
    expect(rootFirstSilent(['aé'], 2)).toEqual([{ kept: 'a', omitted: 2 }])
  })
})

describe('nearest-first budget in discovery', () => {
  async function layered() {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root line one\nroot line two\nroot line three\n',
      'docs/AGENTS.md': 'docs line one\ndocs line two\n',
      'docs/api/AGENTS.md': 'api rules, kept whole\n',
    })
    return { repo, cwd: join(repo, 'docs/api') }
  }

  it('keeps the nearest file whole, cuts its parents at a line with a visible notice', async () => {
    const { repo, cwd } = await layered()
    // api (22 bytes) + docs (28 bytes) fit in 64; 14 bytes remain for the root file: its first line.
    const options = { cwd, home: await emptyHome(), maxBytes: 64 }
    const found = await discoverInstructions(options)
    expect(found.preload).toBe('truncated')
    expect(found.files.map((f) => [f.path, f.truncated])).toEqual([
      [join(repo, 'AGENTS.md'), true],
      [join(repo, 'docs/AGENTS.md'), false],
      [join(repo, 'docs/api/AGENTS.md'), false],
    ])
    expect(found.text).toBe(
      [
        '<!-- AGENTS.md -->',
        'root line one',
        '[… 30 bytes of AGENTS.md omitted …]',
        '',
        '<!-- docs/AGENTS.md -->',
        'docs line one',
        'docs line two',
        '',
        '<!-- docs/api/AGENTS.md -->',
        'api rules, kept whole',
        '',
      ].join('\n'),
    )
    expect(found.diagnostics).toMatchObject([{ code: 'truncated', path: join(repo, 'AGENTS.md') }])
    const why = await explainInstructions({ ...options, file: join(repo, 'AGENTS.md') })
    expect(why).toMatchObject({ status: 'truncated', code: 'truncated' })
    expect(why.reason).toContain('30 cut by the 64-byte cap')
  })

  it('cuts farther files entirely once a nearer one was cut, still naming them', async () => {
    const { repo, cwd } = await layered()
    const found = await discoverInstructions({ cwd, home: await emptyHome(), maxBytes: 30 })
    expect(found.files.map((f) => f.truncated)).toEqual([true, true, false])
    expect(found.text).toContain('<!-- AGENTS.md -->\n[… 44 bytes of AGENTS.md omitted …]\n')
    expect(found.text).toContain('<!-- docs/AGENTS.md -->\n[… 28 bytes of docs/AGENTS.md omitted …]\n')
    expect(found.diagnostics.map((d) => d.path)).toEqual([
      join(repo, 'AGENTS.md'),
      join(repo, 'docs/AGENTS.md'),
    ])
  })

  it('counts the global file last', async () => {
    const { cwd } = await layered()
    const home = await fixtureTree({ '.config/sysprompt/AGENTS.md': 'global rules\n' })
    const found = await discoverInstructions({ cwd, home, maxBytes: 94 })
    expect(found.files.map((f) => f.truncated)).toEqual([true, false, false, false])
    expect(
      found.text.startsWith(
        '<!-- ~/.config/sysprompt/AGENTS.md -->\n[… 13 bytes of ~/.config/sysprompt/AGENTS.md omitted …]\n',
      ),
    ).toBe(true)
  })

  it('is full at the default 32 KiB for small files', async () => {
    const { cwd } = await layered()
    const found = await discoverInstructions({ cwd, home: await emptyHome() })
    expect(found.preload).toBe('full')
    expect(found.files.every((f) => !f.truncated)).toBe(true)
  })
})
