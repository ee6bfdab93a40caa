/**
 * Recompile curves (issue: linear scale): assemble + compile with nothing
 * changed at 10, 100 and 1 000 sections, and at 10, 100 and 500 tools,
 * each size's cost printed as a ratio to the previous size's: medians of
 * interleaved rounds of calibrated batches, each with its spread. Linear would be 10× from 100 to 1 000 sections and
 * 5× from 100 to 500 tools.
 */
import { compile, createPromptRegistry, type PromptRegistry } from '../src/index.js'
import { nodeHash } from '../src/node/index.js'
import { heading, ratio, table, us, verdict, wrap } from './format.js'
import { currentClock, flat } from './measure.js'
import { type BatchCase, interleaveBatches, spreadOf } from './rounds.js'

const PARAGRAPH =
  'Read the files a change touches before you edit them, and keep each edit small enough to review. '

function withSections(n: number): PromptRegistry {
  const registry = createPromptRegistry({ identity: 'You are the scale harness.' })
  registry.variable('model', (ctx) => ctx.model ?? 'unknown')
  for (let s = 0; s < n; s++) {
    registry.section({
      name: `section:${s}`,
      order: s,
      text: `## Section ${s}\n\n${PARAGRAPH}Uses {{model}}.\n{{#if model}}Guidance ${s}.{{/if}}`,
    })
  }
  return registry
}

function withTools(n: number): PromptRegistry {
  const registry = createPromptRegistry({ identity: 'You are the scale harness.' })
  registry.section({ name: 'body', order: 1, text: PARAGRAPH })
  const schemas = Array.from({ length: n }, (_, t) => ({
    name: `tool_${String(t).padStart(3, '0')}`,
    description: `Tool ${t}: does one well-defined thing with the workspace.`,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'A path' }, limit: { type: 'number' } },
      required: ['path'],
    },
  }))
  registry.tools(() => ({ schemas }))
  return registry
}

/** One recompile of `registry` with nothing changed: assemble, then compile. */
function recompile(registry: PromptRegistry): () => Promise<number> {
  const ctx = { model: 'gpt-5.1' }
  const options = { hash: nodeHash, tokenizer: 'o200k' as const }
  return async () => flat(compile(await registry.assemble(ctx), options).text)
}

export async function runScaleBench({ quick }: { quick: boolean }): Promise<void> {
  console.log(heading('Recompile with nothing changed: sections and tools'))
  const sizes = { sections: [10, 100, 1000], tools: [10, 100, 500] }
  const cases: BatchCase[] = [
    ...sizes.sections.map((n) => ({ name: `${n} sections`, op: recompile(withSections(n)) })),
    ...sizes.tools.map((n) => ({ name: `${n} tools`, op: recompile(withTools(n)) })),
  ]
  // Calibration warms every case up first, which fills the memos: the curves are of unchanged recompiles.
  const rounds = quick ? 7 : 31
  const sampleMs = quick ? 15 : 30
  const { results, batches } = await interleaveBatches(cases, {
    rounds,
    sampleMs,
    // No forced collection between batches: each case's garbage is part of its cost, and forced full
    // collections age the code of the cases not running, so V8 drops and recompiles it mid-run.
  })
  const rows: string[][] = []
  for (const [kind, list] of Object.entries(sizes)) {
    list.forEach((n, i) => {
      const name = `${n} ${kind}`
      const r = results.get(name)!
      const prev = i === 0 ? undefined : results.get(`${list[i - 1]} ${kind}`)!
      rows.push([
        name,
        us(r.median * 1000),
        spreadOf(r),
        String(batches.get(name)),
        prev === undefined ? '' : ratio(r.median / prev.median),
      ])
    })
  }
  console.log(
    table(
      [
        'recompile, nothing changed',
        'µs/op',
        'rounds min–max / median',
        'calls in last batch',
        '× the previous size',
      ],
      rows,
      ['l', 'r', 'r', 'r', 'r'],
    ),
  )
  console.log(
    wrap(
      `median of ${rounds} interleaved rounds, each one batch per case (about ${sampleMs} ms on the ` +
        `${currentClock()} clock); ratios are of medians.`,
    ),
  )
  const ratioOf = (a: string, b: string) => results.get(a)!.median / results.get(b)!.median
  const sections = ratioOf('1000 sections', '100 sections')
  const tools = ratioOf('500 tools', '100 tools')
  console.log()
  console.log(
    table(
      ['target', 'measured', 'verdict'],
      [
        ['1 000 sections ≤ 12× the 100-section time', ratio(sections), verdict(sections <= 12)],
        ['500 tools ≤ 6× the 100-tool time', ratio(tools), verdict(tools <= 6)],
      ],
      ['l', 'r', 'l'],
    ),
  )
}
