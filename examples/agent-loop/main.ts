/**
 * An agent loop with a byte-stable system prompt: `npx tsx examples/agent-loop/main.ts`.
 *
 * The session prompt is built once (sessionPreset → assemble → compile,
 * persisted by createSessionPrompts). Each turn, the date and the working
 * directory go to the model in an environment message, sent only when a
 * value changed, while the system prompt keeps the same hash, so a
 * provider's prompt cache keeps hitting. The model is a scripted stand-in:
 * no network, no key. Exits non-zero if the system prompt hash ever moves.
 */
import {
  compile,
  createPromptRegistry,
  createSessionPrompts,
  environmentDelta,
  loadTokenizer,
  sessionPreset,
} from '../../src/index.js'

// The pure entry loads no encoding by itself (a browser or a worker does the
// same); `sysprompt/node` would register a loader that does it on first use.
await loadTokenizer('o200k')

interface Message {
  role: 'user' | 'assistant' | 'environment'
  content: string
}

/** A stand-in for a model API: answers from the latest environment message it was sent. */
function scriptedModel(system: string, messages: readonly Message[]): string {
  const environment = messages.filter((m) => m.role === 'environment').at(-1)?.content ?? ''
  const date = /^date: (.+)$/m.exec(environment)?.[1] ?? 'unknown'
  return `(scripted reply; ${system.length} characters of system prompt; today is ${date})`
}

// The injected clock: one day later each turn. A real harness passes its
// clock adapter; nothing here reads the machine's time or time zone.
let now = new Date(Date.UTC(2026, 2, 2, 9, 0))
const clock = (): Date => now
const today = (): string => clock().toISOString().slice(0, 10)

const cwd = '/home/dev/shop'
const requests = [
  'What does the checkout module do?',
  'Add a test for an empty cart.',
  'Run the tests again.',
]

const registry = createPromptRegistry()
sessionPreset(registry, {
  autonomy: 'auto-edit',
  provider: 'example',
  model: 'scripted-1',
  contextWindow: 128000,
  toolNames: ['read', 'grep', 'edit', 'bash'],
  toolPromptHints: [
    { tool: 'grep', hint: 'Search before reading whole directories.' },
    { tool: 'bash', hint: 'Run the project scripts rather than ad-hoc commands.' },
  ],
  projectContext: '## AGENTS.md\n\nRun `npm test` before you report a change as done.',
})

/** assemble → compile; `volatile: 'error'` refuses a per-turn value in the system prompt. */
const build = async (ctx: Record<string, string>) =>
  compile(await registry.assemble(ctx), { volatile: 'error' })
const sessions = createSessionPrompts({ build, clock })

const first = await sessions.construct('demo', { model: 'scripted-1', cwd })
console.log(`system prompt: ${first.tokens} tokens, ${first.hash}\n`)

const messages: Message[] = []
let sent: Record<string, string> | undefined
let moved = false
for (const [i, request] of requests.entries()) {
  if (i > 0) now = new Date(now.getTime() + 24 * 60 * 60 * 1000)
  // What the session serves, and what a rebuild with this turn's facts would give:
  // both must equal the first prompt, since no per-turn value enters it.
  const served = (await sessions.get('demo'))!
  const rebuilt = await build({ model: 'scripted-1', cwd, date: today() })
  const delta = environmentDelta(sent, { cwd, date: today() })
  sent = delta.sent
  if (delta.message !== null) messages.push({ role: 'environment', content: delta.message })
  messages.push({ role: 'user', content: request })
  messages.push({ role: 'assistant', content: scriptedModel(served.text, messages) })

  const same = served.hash === first.hash && rebuilt.hash === first.hash
  moved ||= !same
  console.log(`turn ${i + 1}: system prompt ${served.hash.slice(0, 23)}… ${same ? '(unchanged)' : '(MOVED)'}`)
  console.log(delta.message === null ? '(no environment change)' : delta.message)
  console.log(`> ${request}\n< ${messages.at(-1)!.content}\n`)
}

if (moved) {
  console.error('the system prompt hash moved between turns: the provider cache would miss')
  process.exitCode = 1
} else {
  console.log('the system prompt stayed byte-identical over every turn')
}
