/**
 * The reference harness (issue: registry, compiled prompts): 40 sections,
 * 30 tools, 20 variables, about 30 KB. Side by side in one run:
 * assemble + render + compile cold (every text new, so every section is
 * tokenized), recompile with one section changed (the token cache keeps the
 * other 39), recompile with nothing changed (hash and counts are lookups),
 * and the floor: joining the resolved section strings plus one sha256.
 * Every case runs in calibrated batches, interleaved round by round; each
 * figure is a median over the rounds, printed with its spread.
 */
import {
  compile,
  createPromptRegistry,
  type PromptRegistry,
  renderSections,
  sha256Hex,
} from '../src/index.js'
import { nodeHash } from '../src/node/index.js'
import { heading, ratio, table, us, verdict, wrap } from './format.js'
import { currentClock, flat } from './measure.js'
import { type BatchCase, interleaveBatches, type RoundResult, spreadOf } from './rounds.js'

const SECTIONS = 40
const TOOLS = 30
const VARIABLES = 20

const PARAGRAPH =
  'Read the files a change touches before you edit them, and keep each edit small enough to review. ' +
  'When a command fails, quote the first error line and say what you will try next. ' +
  'Prefer the project conventions over your own habits; ask when two of them disagree. '

/** Builds the harness; `nonce` makes every text new (cold), `changing` names a section whose text changes per assembly. */
function harness(nonce: string, changing?: { section: number; counter: () => number }): PromptRegistry {
  const registry = createPromptRegistry({
    identity: `You are the reference harness (${nonce}).`,
    persona: 'You help engineers change code safely on {{model}}.',
  })
  for (let v = 0; v < VARIABLES; v++) registry.variable(`var_${v}`, () => `value ${v} of the deployment`)
  registry.variable('model', (ctx) => ctx.model ?? 'unknown')
  for (let s = 0; s < SECTIONS; s++) {
    const body = `## Section ${s} ${nonce}\n\n${PARAGRAPH.repeat(2)}\nUses {{var_${s % VARIABLES}}} and {{var_${(s + 7) % VARIABLES}}}.\n{{#if var_${(s + 3) % VARIABLES}}}Conditional guidance for section ${s}.{{/if}}\n${PARAGRAPH.repeat(1)}`
    const text = changing?.section === s ? () => `${body}\nturn ${changing.counter()}` : body
    registry.section({ name: `section:${s}`, order: 100 + s, text, stability: s < 30 ? 'static' : 'session' })
  }
  registry.tools(() => ({
    schemas: Array.from({ length: TOOLS }, (_, t) => ({
      name: `tool_${String(t).padStart(2, '0')}`,
      description: `Tool ${t}: does one well-defined thing with the workspace.`,
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'A path inside the workspace' },
          limit: { type: 'number' },
        },
        required: ['path'],
      },
    })),
  }))
  return registry
}

export async function runRegistryBench({ quick }: { quick: boolean }): Promise<void> {
  const ctx = { model: 'gpt-5.1' }
  const options = { hash: nodeHash, tokenizer: 'o200k' as const }

  const steady = harness('steady')
  const sample = compile(await steady.assemble(ctx), options)
  console.log(heading('Registry and compile: the reference harness'))
  console.log(
    `${sample.sections.length} sections, ${sample.tools.length} tools, ${VARIABLES + 1} variables; ` +
      `${(sample.bytes / 1024).toFixed(1)} KB, ${sample.tokens} tokens (o200k)`,
  )

  let coldRun = 0
  let turn = 0
  const oneChanged = harness('one-changed', { section: 35, counter: () => turn++ })
  const fresh = await Promise.all(Array.from({ length: 64 }, () => steady.assemble(ctx)))
  let k = 0
  const pieces = renderSections(await steady.assemble(ctx)).map((r) => r.text)
  const FLOOR = 'floor'
  const cases: BatchCase[] = [
    {
      name: FLOOR,
      op: () => {
        const text = pieces.join('\n\n')
        return nodeHash(text).length + flat(text)
      },
    },
    { name: 'floor noble', op: () => sha256Hex(pieces.join('\n\n')).length },
    { name: 'assemble', op: async () => (await steady.assemble(ctx)).sections.length },
    {
      name: 'cold',
      op: async () => flat(compile(await harness(`cold ${coldRun++}`).assemble(ctx), options).text),
    },
    { name: 'changed', op: async () => flat(compile(await oneChanged.assemble(ctx), options).text) },
    { name: 'unchanged', op: async () => flat(compile(await steady.assemble(ctx), options).text) },
    { name: 'compile', op: () => flat(compile(fresh[k++ & 63]!, options).text) },
    {
      name: 'unchanged noble',
      op: async () => flat(compile(await steady.assemble(ctx), { tokenizer: 'o200k' }).text),
    },
  ]
  const rounds = quick ? 7 : 25
  const sampleMs = quick ? 15 : 30
  const { results } = await interleaveBatches(cases, { rounds, sampleMs })
  const at = (name: string): RoundResult => results.get(name)!
  const usOf = (name: string): number => at(name).median * 1000
  const floor = usOf(FLOOR)
  const cold = usOf('cold')
  const changed = usOf('changed')
  const unchanged = usOf('unchanged')
  const compileOnly = usOf('compile')

  const rows: [string, string, string][] = [
    ['floor: join resolved sections + sha256 (node:crypto)', FLOOR, ''],
    ['floor: join + sha256 (@noble/hashes, pure JS)', 'floor noble', ''],
    ['assemble only (async, 40 sections, 30 tools)', 'assemble', ''],
    ['assemble + render + compile, cold', 'cold', ''],
    ['recompile, one section changed', 'changed', `cold / this = ${ratio(cold / changed)}`],
    ['recompile, nothing changed (node:crypto hash)', 'unchanged', 'assemble + compile'],
    ['compile alone, nothing changed (fresh assembly)', 'compile', 'hash and counts from memos'],
    ['recompile, nothing changed (pure-JS hash)', 'unchanged noble', ''],
  ]
  console.log(
    table(
      ['case', 'µs/op', 'rounds min–max / median', '× floor', 'note'],
      rows.map(([label, name, note]) => [
        label,
        us(usOf(name)),
        spreadOf(at(name)),
        ratio(usOf(name) / floor),
        note,
      ]),
      ['l', 'r', 'r', 'r', 'l'],
    ),
  )
  console.log(
    wrap(
      `median of ${rounds} interleaved rounds, each one batch per case (about ${sampleMs} ms on the ` +
        `${currentClock()} clock); ratios are of medians.`,
    ),
  )
  console.log()
  console.log(
    table(
      ['target', 'measured', 'verdict'],
      [
        [
          'recompile with one section changed ≥ 10× cheaper than cold',
          ratio(cold / changed),
          verdict(cold / changed >= 10),
        ],
        [
          'recompile with nothing changed (assemble + compile) ≤ 2× the floor (join + one sha256)',
          ratio(unchanged / floor),
          verdict(unchanged <= 2 * floor),
        ],
        [
          'recompile with nothing changed ≤ 100 µs (compile alone)',
          `${us(compileOnly)} µs`,
          verdict(compileOnly <= 100),
        ],
        [
          'recompile with nothing changed ≤ 100 µs (assemble + compile)',
          `${us(unchanged)} µs`,
          verdict(unchanged <= 100),
        ],
      ],
      ['l', 'r', 'l'],
    ),
  )
}
