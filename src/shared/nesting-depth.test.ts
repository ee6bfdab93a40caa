import fc from 'fast-check'
import * as jsonc from 'jsonc-parser'
import { describe, expect, it } from 'vitest'
import * as yaml from 'yaml'
import { propertyRuns } from '../../test/property-runs.test-helper.js'
import {
  bracketDepthExceeded,
  MAX_NESTING_DEPTH,
  valueDepthExceeds,
  yamlDepthExceeded,
} from './nesting-depth.js'

// The nesting checks that run before the recursive parsers of repository
// input: the offset where the text first nests past the limit, or -1. They
// may count more than a parser nests in an invalid text, never less.

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`

describe('bracketDepthExceeded', () => {
  it('refuses the level past the limit at its opening bracket', () => {
    expect(MAX_NESTING_DEPTH).toBe(256)
    expect(bracketDepthExceeded(nested(256), 'json')).toBe(-1)
    expect(bracketDepthExceeded(nested(257), 'json')).toBe(256)
    expect(bracketDepthExceeded(`{"a": ${nested(5000)}}`, 'json')).toBe(6 + 255)
    expect(bracketDepthExceeded('{"a":{"b":[1]}}', 'json', 2)).toBe(10)
    expect(bracketDepthExceeded('[[]][[]]', 'json', 2)).toBe(-1)
  })

  it('skips brackets in JSON strings and comments, as jsonc-parser scans them', () => {
    expect(bracketDepthExceeded('["[[[", "\\"[[["]', 'json', 1)).toBe(-1)
    expect(bracketDepthExceeded('// [[[\n[/* [[[ */]', 'json', 1)).toBe(-1)
    expect(bracketDepthExceeded('[/ [', 'json', 1)).toBe(3)
    // A line break ends a string for jsonc-parser: the brackets after it count.
    expect(bracketDepthExceeded('["abc\n[[', 'json', 2)).toBe(7)
    expect(bracketDepthExceeded('[/* never closed [[', 'json', 1)).toBe(-1)
  })

  it('does not let a stray closing bracket lower the count (jsonc-parser skips it)', () => {
    expect(bracketDepthExceeded('[}'.repeat(300), 'json')).toBe(512)
    expect(bracketDepthExceeded('{]'.repeat(300), 'json')).toBe(512)
  })

  it('skips brackets in TOML strings of every kind and in comments', () => {
    const toml = [
      'a = "[[" # [[',
      "b = '[[\\'",
      'c = """\n[[\n"""',
      "d = '''\n[[ '' ]]\n'''",
      'e = """ends with a quote""""',
      '[table]',
      'f = [[1], {g = [2]}]',
    ].join('\n')
    expect(bracketDepthExceeded(toml, 'toml', 3)).toBe(-1)
    expect(bracketDepthExceeded(toml, 'toml', 2)).toBe(toml.indexOf('[2]'))
    expect(bracketDepthExceeded(`a = ${nested(5000)}`, 'toml')).toBe(4 + 256)
    expect(bracketDepthExceeded(`a = ${nested(300, '{b=', '}')}`, 'toml')).toBe(4 + 3 * 256)
  })

  it('never counts less than jsonc-parser nests, on any text of JSON punctuation', () => {
    const text = fc
      .array(fc.constantFrom('[', ']', '{', '}', '"', '\\', '/', '*', '\n', ',', ':', 'a', ' '), {
        maxLength: 60,
      })
      .map((parts) => parts.join(''))
    fc.assert(
      fc.property(text, (source) => {
        let depth = 0
        let deepest = 0
        const enter = () => {
          depth++
          deepest = Math.max(deepest, depth)
        }
        const leave = () => {
          depth--
        }
        jsonc.visit(
          source,
          { onObjectBegin: enter, onArrayBegin: enter, onObjectEnd: leave, onArrayEnd: leave },
          { allowTrailingComma: true, disallowComments: false },
        )
        if (deepest > 0) expect(bracketDepthExceeded(source, 'json', deepest - 1)).not.toBe(-1)
      }),
      { numRuns: propertyRuns(2000) },
    )
  })

  it('counts exactly the nesting of any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 7 }), (value, limit) => {
        const text = JSON.stringify(value, null, 1)
        expect(bracketDepthExceeded(text, 'json', limit) !== -1).toBe(valueDepthExceeds(value, limit))
      }),
      { numRuns: propertyRuns(500) },
    )
  })
})

describe('yamlDepthExceeded', () => {
  it('counts block and flow collections, and nothing inside scalars or comments', () => {
    expect(yamlDepthExceeded('a: 1\nb: [1, 2]\n', yaml, 2)).toBe(-1)
    expect(yamlDepthExceeded('a: 1\nb: [1, 2]\n', yaml, 1)).not.toBe(-1)
    expect(yamlDepthExceeded('a:\n  - b: [ {c: [1]} ]\n', yaml, 6)).toBe(-1)
    expect(yamlDepthExceeded('a:\n  - b: [ {c: [1]} ]\n', yaml, 5)).not.toBe(-1)
    expect(yamlDepthExceeded('a: "[[[["\nb: \'{{{\' # [[[\nc: |\n  [[[[\n', yaml, 1)).toBe(-1)
    expect(yamlDepthExceeded('- - - x\n', yaml, 2)).not.toBe(-1)
    // A pair in a flow sequence is a mapping of its own.
    expect(yamlDepthExceeded('[a: [1]]', yaml, 2)).not.toBe(-1)
    expect(yamlDepthExceeded('[? [1]]', yaml, 2)).not.toBe(-1)
    expect(yamlDepthExceeded('[a: [1]]', yaml, 3)).toBe(-1)
  })

  it('stops deep flow, block and compact nesting near where it goes past the limit', () => {
    const flow = `a: ${nested(5000)}`
    expect(yamlDepthExceeded(flow, yaml)).toBeGreaterThan(3 + 255)
    expect(yamlDepthExceeded(flow, yaml)).toBeLessThan(3 + 260)
    expect(yamlDepthExceeded('- '.repeat(100_000), yaml)).not.toBe(-1)
    const block = Array.from({ length: 400 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')
    expect(yamlDepthExceeded(block, yaml)).not.toBe(-1)
    expect(yamlDepthExceeded(`a: ${nested(256)}`, yaml)).not.toBe(-1)
    expect(yamlDepthExceeded(`${nested(256)}`, yaml)).toBe(-1)
  })

  it('counts a pair the composer makes of a flow item missing its colon (`[""a]`: a mapping in a sequence)', () => {
    // Found by the property below: a mapping key `[""a]` composes to three levels (mapping, sequence, pair).
    expect(yamlDepthExceeded('[""a]: ', yaml, 1)).not.toBe(-1)
  })

  it('counts exactly the nesting of any value written as block or flow YAML', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 6 }),
        fc.integer({ min: 0, max: 7 }),
        fc.constantFrom(false, true),
        (value, limit, flow) => {
          const text = yaml.stringify(value, { collectionStyle: flow ? 'flow' : 'block' })
          // Empty collections are written `[]`/`{}` in block style too: a level like any other.
          expect(yamlDepthExceeded(text, yaml, limit) !== -1).toBe(valueDepthExceeds(value, limit))
        },
      ),
      { numRuns: propertyRuns(500) },
    )
  })

  it('never counts less than half of what the composed document nests (keys that are collections)', () => {
    const text = fc
      .array(fc.constantFrom('[', ']', '{', '}', '- ', ': ', 'a', '\n', '  ', ',', '"', "'", '#', '? '), {
        maxLength: 40,
      })
      .map((parts) => parts.join(''))
    fc.assert(
      fc.property(text, (source) => {
        const doc = yaml.parseDocument(source)
        let deepest = 0
        yaml.visit(doc, {
          Collection(_key, _node, path) {
            deepest = Math.max(deepest, path.filter((p) => yaml.isCollection(p)).length + 1)
          },
        })
        if (deepest > 0) expect(yamlDepthExceeded(source, yaml, Math.ceil(deepest / 2) - 1)).not.toBe(-1)
      }),
      { numRuns: propertyRuns(2000) },
    )
  })
})

describe('valueDepthExceeds', () => {
  it('walks arrays and objects without recursing; dates and scalars are leaves', () => {
    let deep: unknown = 1
    for (let i = 0; i < 100_000; i++) deep = { a: deep }
    expect(valueDepthExceeds(deep)).toBe(true)
    expect(valueDepthExceeds([[1]], 2)).toBe(false)
    expect(valueDepthExceeds([[[1]]], 2)).toBe(true)
    expect(valueDepthExceeds({ a: new Date(0), b: 'x', c: null }, 1)).toBe(false)
    expect(valueDepthExceeds('text', 0)).toBe(false)
  })
})
