/**
 * Adversarial linearity (SPEC §2 "Cost"): lenient compile of hostile
 * inputs of n and 8n characters in both dialects; a linear parser shows a
 * time ratio near 8.
 */
import { clearTemplateCache, compileTemplate, type Dialect } from '../src/template/index.js'
import { heading, ms, ratio, table, wrap } from './format.js'
import { timeCalls } from './measure.js'

interface Pattern {
  name: string
  /** An input of about `size` characters. */
  build(size: number): string
}

function repeated(unit: string, tail = ''): (size: number) => string {
  return (size) => unit.repeat(Math.max(1, Math.floor((size - tail.length) / unit.length))) + tail
}

/** Deterministic mixed garbage: fragments of both dialects' tags, valid and not. */
function mixed(size: number): string {
  const fragments = [
    '[',
    ']',
    '{{',
    '}}',
    '{',
    '}',
    '[if a:b]',
    '[if !a:b]',
    '[else]',
    '[endif]',
    '[a:b]',
    '[x',
    '[a:',
    '{{#if a}}',
    '{{#if !a}}',
    '{{else}}',
    '{{/if}}',
    '{{a}}',
    '{{ a }}',
    '{{a',
    'text ',
    '\n',
    '[todo] ',
  ]
  let seed = 0x2545f491
  const parts: string[] = []
  let length = 0
  while (length < size) {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    const fragment = fragments[(seed >>> 0) % fragments.length]!
    parts.push(fragment)
    length += fragment.length
  }
  return parts.join('')
}

/** Valid in both dialects at once: k nested blocks of each, closed innermost first. */
function nested(size: number): string {
  const open = '{{#if a}}[if a:b]'
  const close = '[endif]{{/if}}'
  const k = Math.max(1, Math.floor(size / (open.length + close.length)))
  return open.repeat(k) + 'x' + close.repeat(k)
}

const PATTERNS: Pattern[] = [
  { name: '[ repeated', build: repeated('[') },
  { name: '[ repeated, then ]', build: repeated('[', ']') },
  { name: '{{ repeated', build: repeated('{{') },
  { name: '{{ repeated, then }}', build: repeated('{{', '}}') },
  { name: '[if x:y] repeated (unclosed)', build: repeated('[if x:y]') },
  { name: '{{#if x}} repeated (unclosed)', build: repeated('{{#if x}}') },
  { name: '[endif] / {{/if}} repeated (stray)', build: repeated('[endif]{{/if}}') },
  { name: '{{a repeated', build: repeated('{{a') },
  { name: '{{a repeated, then }}', build: repeated('{{a', '}}') },
  { name: '[a: repeated', build: repeated('[a:') },
  { name: '[a: repeated, then ]', build: repeated('[a:', ']') },
  { name: 'nested blocks, both dialects (valid)', build: nested },
  { name: 'mixed fragments', build: mixed },
]

/** 8n is not tried when n alone takes longer than this (a non-linear case would otherwise stall the run). */
const GIVE_UP_MS = 1000

export function runLinearity(options: { quick: boolean; log: (line: string) => void }): void {
  const { log } = options
  const n = options.quick ? 64 * 1024 : 256 * 1024
  const rows: string[][] = []
  let worst = 0
  for (const pattern of PATTERNS) {
    const small = pattern.build(n)
    const large = pattern.build(8 * n)
    for (const dialect of ['mustache', 'bracket'] as Dialect[]) {
      const compile = (source: string) => (): number => {
        clearTemplateCache() // inputs ≤ 1 MB would otherwise be served from the cache
        const template = compileTemplate(source, { dialect, strict: false })
        return template.diagnostics.length + template.variables.length
      }
      const problems = compileTemplate(small, { dialect, strict: false }).diagnostics.length
      compile(small)() // warm
      const tn = timeCalls(compile(small), 5, 1000)
      let t8n: number | undefined
      if (tn.ms < GIVE_UP_MS) t8n = timeCalls(compile(large), 5, 2000).ms
      const r = t8n === undefined ? undefined : t8n / tn.ms
      if (r !== undefined && t8n! >= 1) worst = Math.max(worst, r)
      rows.push([
        pattern.name,
        dialect,
        problems >= 100 ? '100+' : String(problems),
        ms(tn.ms),
        t8n === undefined ? 'skipped' : ms(t8n),
        r === undefined ? '—' : ratio(r),
        r === undefined
          ? `8n skipped: t(n) > ${GIVE_UP_MS} ms`
          : r > 12 && t8n! >= 1
            ? 'superlinear?'
            : t8n! < 1
              ? '(sub-ms: fixed costs)'
              : '',
      ])
    }
  }
  clearTemplateCache()
  log(
    heading(
      `Adversarial linearity: lenient compile, n = ${n / 1024} K chars, 8n = ${(8 * n) / 1024} K chars`,
    ),
  )
  log(
    table(['input', 'dialect', 'diagnostics (n)', 't(n) ms', 't(8n) ms', 't(8n)/t(n)', ''], rows, [
      'l',
      'l',
      'r',
      'r',
      'r',
      'r',
      'l',
    ]),
  )
  log(
    wrap(
      `linear ≈ 8×; worst ratio ${ratio(worst)}. Times are medians of single calls, each after a full gc; ` +
        'sub-millisecond pairs mostly measure fixed costs, and with the CPU clock they include GC helper threads.',
    ),
  )
}
