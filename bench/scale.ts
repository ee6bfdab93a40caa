/**
 * Recompile curves (issue: linear scale): assemble + compile with nothing
 * changed at 10, 100 and 1 000 sections, and at 10, 100 and 500 tools,
 * each size's cost printed as a ratio to the previous size's, from
 * interleaved rounds. Linear would be 10× from 100 to 1 000 sections and
 * 5× from 100 to 500 tools.
 */
import { compile, createPromptRegistry, type PromptRegistry } from '../src/index.js'
import { nodeHash } from '../src/node/index.js'
import { heading, table, verdict } from './format.js'
import { flat, clockNow as now } from './measure.js'
import { interleave, ratioWithSpread } from './rounds.js'

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

/** Milliseconds per recompile of `registry`, over a batch long enough to time (`batch` calls). */
function recompile(registry: PromptRegistry, batch: number) {
  const ctx = { model: 'gpt-5.1' }
  const options = { hash: nodeHash, tokenizer: 'o200k' as const }
  return async () => {
    const t0 = now()
    let sink = 0
    for (let i = 0; i < batch; i++) sink += flat(compile(await registry.assemble(ctx), options).text)
    if (sink === -1) console.log(sink)
    return (now() - t0) / batch
  }
}

export async function runScaleBench({ quick }: { quick: boolean }): Promise<void> {
  console.log(heading('Recompile with nothing changed: sections and tools'))
  const rounds = quick ? 5 : 15
  const sizes = { sections: [10, 100, 1000], tools: [10, 100, 500] }
  const cases = [
    ...sizes.sections.map((n) => ({
      name: `${n} sections`,
      run: recompile(withSections(n), Math.max(1, 2000 / n)),
    })),
    ...sizes.tools.map((n) => ({ name: `${n} tools`, run: recompile(withTools(n), Math.max(1, 2000 / n)) })),
  ]
  // Fill the memos before the rounds: the curves are of unchanged recompiles.
  for (const c of cases) await c.run()
  const results = await interleave(cases, rounds)
  const rows: string[][] = []
  for (const [kind, list] of Object.entries(sizes)) {
    list.forEach((n, i) => {
      const r = results.get(`${n} ${kind}`)!
      const prev = i === 0 ? undefined : results.get(`${list[i - 1]} ${kind}`)!
      rows.push([
        `${n} ${kind}`,
        (r.median * 1000).toFixed(1),
        prev === undefined ? '' : ratioWithSpread(r, prev),
      ])
    })
  }
  console.log(table(['recompile, nothing changed', 'µs/op', '× the previous size'], rows, ['l', 'r', 'r']))
  const ratio = (a: string, b: string) => results.get(a)!.median / results.get(b)!.median
  const sections = ratio('1000 sections', '100 sections')
  const tools = ratio('500 tools', '100 tools')
  console.log()
  console.log(
    table(
      ['target', 'measured', 'verdict'],
      [
        ['1 000 sections ≤ 12× the 100-section time', `${sections.toFixed(2)}×`, verdict(sections <= 12)],
        ['500 tools ≤ 6× the 100-tool time', `${tools.toFixed(2)}×`, verdict(tools <= 6)],
      ],
      ['l', 'r', 'l'],
    ),
  )
}
