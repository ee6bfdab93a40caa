/**
 * Template engine benchmark (SPEC §2 "Cost"): sysprompt against Handlebars,
 * Mustache, LiquidJS, Eta and Nunjucks on one ~25 KB system-prompt
 * template, side by side in one process, every output asserted
 * byte-identical to sysprompt's; then heap per compiled template; then
 * adversarial linearity of the parser.
 */
import { clearTemplateCache, compileTemplate } from '../src/template/index.js'
import { HOT_RENDERS } from '../src/template/render.js'
import { type Engine, engines, type Values } from './engines.js'
import { sameLengthSuffix, systemPromptFixture, uniqueSuffix } from './fixtures/index.js'
import { heading, kb, ratio, table, us, verdict, wrap } from './format.js'
import { type Case, currentClock, flat, gc, retainedHeap, type Timing, timeCases, timeOp } from './measure.js'
import { runLinearity } from './template-linearity.js'

export interface TemplateBenchOptions {
  /** Shorter budgets and fewer templates, for a smoke run. */
  quick?: boolean
  /** Write a line of output (default: console.log). */
  log?: (line: string) => void
}

/** Targets printed next to the figures (SPEC §2 and the benchmark issue). */
const TARGET_RENDER_VS_FLOOR = 1.2
const TARGET_PARSE_FRACTION = 1 / 10
const TARGET_HEAP_BYTES = 30 * 1024
/** The capacity of sysprompt's compiled-template LRU cache (src/template/compile-template.ts). */
const SYSPROMPT_CACHE_SIZE = 256

/** Each never-seen source gets its own number; shared by all engines so none sees another's source either. */
let revision = 0

function freshSource(base: string, suffix: (n: number) => string = uniqueSuffix): string {
  const source = base + suffix(revision++)
  flat(source) // hand engines a flat string, as read from a file
  return source
}

interface Row {
  engine: Engine
  source: string
  values: Values
  render?: Timing
  parse?: Timing
}

export async function runTemplateBench(options: TemplateBenchOptions = {}): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(line))
  const quick = options.quick === true
  const fixture = systemPromptFixture()
  const { reference, bracket, others } = engines()
  const all = [reference, bracket, ...others]
  const rows: Row[] = all.map((engine) => ({
    engine,
    source: fixture.sources[engine.syntax],
    values: fixture.values[engine.syntax],
  }))

  const st = fixture.stats
  log(heading('Template engines: one ~25 KB system prompt'))
  log(
    wrap(
      `template: ${st.sections} sections, ${st.references} references (${st.distinctKeys} distinct keys), ` +
        `${st.conditionals} conditionals (${st.nested} nested, ${st.negated} negated, ${st.withElse} with else); ` +
        `source ${kb(fixture.sources['sysprompt-mustache'].length)} (mustache dialect), output ${kb(fixture.expected.length)} ` +
        `in ${fixture.pieces.length} pieces`,
    ),
  )
  log(
    `node ${process.version}, clock: ${currentClock() === 'cpu' ? 'process CPU time' : 'wall time'}, ` +
      `gc ${gc === undefined ? 'unavailable (heap figures skipped)' : 'available'}${quick ? ', quick mode' : ''}`,
  )

  // Correctness first: every engine, both ways, byte-identical to sysprompt.
  const expected = reference.compile(fixture.sources['sysprompt-mustache'], rows[0]!.values)()
  if (expected !== fixture.expected) {
    throw new Error(
      'sysprompt output differs from the fixture description; the fixture or the engine is wrong',
    )
  }
  for (const row of rows) {
    const rendered = row.engine.compile(row.source, row.values)()
    assertSame(row.engine.name, 'render', rendered, expected)
    const probe = uniqueSuffix(-1)
    const parsed = row.engine.parseAndRender(row.source + probe, row.values)
    assertSame(row.engine.name, 'parse+render', parsed, expected + probe)
  }
  log(`outputs: all ${rows.length} engines byte-identical to sysprompt (render and parse+render)`)

  const renderBudget = quick ? { warmupMs: 100, budgetMs: 300 } : { warmupMs: 300, budgetMs: 1200 }
  const parseBudget = quick ? { warmupMs: 150, budgetMs: 400 } : { warmupMs: 400, budgetMs: 1600 }

  // The floor: the output's pieces, already resolved, joined. Render cases run interleaved, batch by batch.
  const pieces = fixture.pieces.map((p) => {
    flat(p)
    return p
  })
  const FLOOR_CONCAT = 'floor: pieces joined with +='
  const FLOOR_JOIN = "floor: pieces.join('')"
  const renderCases: Case[] = [
    {
      name: FLOOR_CONCAT,
      op: () => {
        let out = ''
        for (let i = 0; i < pieces.length; i++) out += pieces[i]
        return flat(out)
      },
    },
    { name: FLOOR_JOIN, op: () => flat(pieces.join('')) },
    ...rows.map((row): Case => {
      const render = row.engine.compile(row.source, row.values)
      return { name: row.engine.name, op: () => flat(render()) }
    }),
  ]
  const renderTimings = timeCases(renderCases, renderBudget)
  const floorConcat = renderTimings.get(FLOOR_CONCAT)!
  const floorJoin = renderTimings.get(FLOOR_JOIN)!
  for (const row of rows) row.render = renderTimings.get(row.engine.name)!

  // Parse+render: one engine at a time (their costs differ by orders of magnitude), each iteration on a
  // source never seen before, built untimed before its batch. One batch array lives at a time.
  let batch: string[] = []
  const parseTiming = (
    source: string,
    run: (source: string) => string,
    suffix: (n: number) => string = uniqueSuffix,
  ): Timing => {
    const timing = timeOp((i) => flat(run(batch[i]!)), {
      ...parseBudget,
      // Bounded so a batch of ~50 KB sources stays small; capped batches are simply more numerous.
      maxBatchIterations: 400,
      prepare: (n) => {
        batch = []
        batch = Array.from({ length: n }, () => freshSource(source, suffix))
      },
    })
    batch = []
    return timing
  }
  for (const row of rows) {
    const { engine, values } = row
    row.parse = parseTiming(row.source, (source) => engine.parseAndRender(source, values))
  }
  // Diagnostic: sysprompt on never-seen sources that all have the same length (a fixed-width field
  // changing, as when a harness rebuilds a prompt per turn), with its compiled-template cache at
  // steady state: full of such sources. V8 hashes strings over 16 383 chars by length alone, so they
  // all collide in the cache's Map, and every lookup compares the source with each cached one.
  clearTemplateCache()
  const sameLength = (source: string): string =>
    compileTemplate(source, { dialect: 'mustache', strict: true }).render(rows[0]!.values)
  for (let i = 0; i < SYSPROMPT_CACHE_SIZE; i++) sameLength(freshSource(rows[0]!.source, sameLengthSuffix))
  const sameLengthTiming = parseTiming(rows[0]!.source, sameLength, sameLengthSuffix)
  clearTemplateCache()

  const ref = rows[0]!
  const refRender = ref.render!.us
  const refParse = ref.parse!.us
  const floor = Math.min(floorConcat.us, floorJoin.us)
  const timingRows: string[][] = [
    ['floor: pieces joined with +=', us(floorConcat.us), ratio(floorConcat.us / refRender), '', ''],
    ["floor: pieces.join('')", us(floorJoin.us), ratio(floorJoin.us / refRender), '', ''],
    ...rows.map((row) => [
      row.engine.name,
      us(row.render!.us),
      ratio(row.render!.us / refRender),
      us(row.parse!.us),
      ratio(row.parse!.us / refParse),
    ]),
    [
      '(diagnostic) sysprompt strict, same-length sources',
      '',
      '',
      us(sameLengthTiming.us),
      ratio(sameLengthTiming.us / refParse),
    ],
  ]
  log(heading('Time per operation (median of batches; every output flattened)'))
  log(
    table(['engine', 'render µs/op', '× sysprompt', 'parse+render µs/op', '× sysprompt'], timingRows, [
      'l',
      'r',
      'r',
      'r',
      'r',
    ]),
  )
  log(
    wrap(
      'render: the compiled template reused. parse+render: a source never seen before on every ' +
        'iteration (a unique trailing comment; Handlebars compiled afresh, Liquid and Eta with cache off, a new ' +
        'Nunjucks Template). The unique sources also differ in length: V8 hashes strings over 16 383 chars by ' +
        'length alone, so equal-length sources all collide in any table keyed by source (an engine cache, or ' +
        "V8's compilation cache behind new Function in Handlebars, Eta and Nunjucks, whose cost then grows with " +
        'every source compiled). The diagnostic row is sysprompt on equal-length sources, its 256-entry ' +
        'template cache full of them: the difference from its row above is the cache lookup alone. Ratios ' +
        '(×) are relative to sysprompt mustache strict.',
    ),
  )

  // Heap per compiled template: distinct sources built before the baseline, so they are not counted.
  const heapRows: string[][] = []
  const heapPer = new Map<Engine, number>()
  const counts = quick ? { sysprompt: 500, other: 40 } : { sysprompt: 2000, other: 100 }
  if (gc !== undefined) {
    for (const row of rows) {
      const count = row.engine.syntax.startsWith('sysprompt') ? counts.sysprompt : counts.other
      const sources = Array.from({ length: count }, () => freshSource(row.source))
      clearTemplateCache()
      const { bytes, kept } = retainedHeap(() => sources.map((s) => row.engine.compile(s, row.values)))
      if (kept.length !== count || bytes === undefined) throw new Error('heap measurement lost its templates')
      heapPer.set(row.engine, bytes / count)
      heapRows.push([row.engine.name, String(count), kb(bytes / count)])
    }
    // A template rendered often also keeps the layout of its path (src/template/render.ts): measured after that.
    const hotCount = counts.sysprompt / 4
    const hotSources = Array.from({ length: hotCount }, () => freshSource(ref.source))
    clearTemplateCache()
    const hot = retainedHeap(() =>
      hotSources.map((s) => {
        const render = reference.compile(s, ref.values)
        for (let i = 0; i < HOT_RENDERS; i++) render()
        return render
      }),
    )
    if (hot.kept.length !== hotCount || hot.bytes === undefined)
      throw new Error('heap measurement lost its templates')
    heapRows.push([
      `${reference.name}, rendered ${HOT_RENDERS} times`,
      String(hotCount),
      kb(hot.bytes / hotCount),
    ])
    clearTemplateCache()
    log(heading('Heap per compiled template (source strings excluded)'))
    log(table(['engine', 'templates', 'heap / template'], heapRows, ['l', 'r', 'r']))
    log(
      wrap(
        `each source is ${kb(ref.source.length * (isOneByte(ref.source) ? 1 : 2))} in memory ` +
          `(${isOneByte(ref.source) ? 'one' : 'two'}-byte string); sysprompt figures include its LRU cache (256 entries). ` +
          `A template rendered ${HOT_RENDERS} times also holds the layout of its path: the literal text of its output, ` +
          'pre-joined and one-byte (the target is per compiled template; this row is the cost of rendering fast).',
      ),
    )
  }

  const fastestOther = others
    .map((engine) => rows.find((r) => r.engine === engine)!)
    .reduce((a, b) => (a.parse!.us <= b.parse!.us ? a : b))
  const targetRows: string[][] = [
    [
      `sysprompt strict render ≤ ${TARGET_RENDER_VS_FLOOR}× the floor (faster of += and join)`,
      `${us(refRender)} µs = ${ratio(refRender / floor)} of ${us(floor)} µs`,
      verdict(refRender <= TARGET_RENDER_VS_FLOOR * floor),
    ],
    [
      `sysprompt strict parse+render ≤ 1/10 of the fastest other (${fastestOther.engine.name})`,
      `${us(refParse)} µs = 1/${(fastestOther.parse!.us / refParse).toFixed(1)} of ${us(fastestOther.parse!.us)} µs`,
      verdict(refParse <= TARGET_PARSE_FRACTION * fastestOther.parse!.us),
    ],
  ]
  for (const engine of [reference, bracket]) {
    const per = heapPer.get(engine)
    targetRows.push([
      `${engine.name}: ≤ 30 KB heap per compiled template`,
      per === undefined ? 'n/a (no gc)' : kb(per),
      per === undefined ? 'n/a' : verdict(per <= TARGET_HEAP_BYTES),
    ])
  }
  log(heading('Targets'))
  log(table(['target', 'measured', ''], targetRows, ['l', 'r', 'l']))

  runLinearity({ quick, log })
}

function assertSame(engine: string, what: string, actual: string, expected: string): void {
  if (actual === expected) return
  let i = 0
  while (i < actual.length && i < expected.length && actual.charCodeAt(i) === expected.charCodeAt(i)) i++
  const around = (s: string): string => JSON.stringify(s.slice(Math.max(0, i - 40), i + 40))
  throw new Error(
    `${engine} ${what} output differs from sysprompt's at offset ${i} (lengths ${actual.length} and ${expected.length}):\n` +
      `  ${engine}: ${around(actual)}\n  sysprompt: ${around(expected)}`,
  )
}

function isOneByte(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0xff) return false
  return true
}
