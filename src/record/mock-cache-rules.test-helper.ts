/*
 * The prompt-cache rules of each provider, as their documentation states
 * them (ANCHORS "Provider prompt caching"), for the mock provider: usage is
 * computed from what a request sends and what earlier requests wrote, never
 * scripted. Tokens are estimated as a quarter of the characters of each
 * element's JSON (rounded up per element), which is enough for rules that
 * compare lengths with thresholds; the minimums come from
 * `compile/cache-minimums.ts`. The clock is injected.
 */
import { cacheMinimum } from '../compile/cache-minimums.js'
import { hashTextOnce } from '../shared/hash.js'

/** What the rules are built with. */
export interface CacheRulesOptions {
  /** Milliseconds since the epoch (default `Date.now`); tests move it by hand. */
  now?: () => number
  /** How long OpenAI's and Gemini's automatic caches keep an idle prefix (default 5 minutes). */
  automaticTtlMs?: number
}

/** Usage in each provider's own fields. */
export interface AnthropicUsage {
  input_tokens: number
  cache_creation_input_tokens: number
  cache_read_input_tokens: number
  output_tokens: number
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number }
}

/** The tokens of an element, estimated: its JSON's length over four, rounded up. */
export function estimateTokens(element: unknown): number {
  return Math.ceil((JSON.stringify(element) ?? '').length / 4)
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Anthropic looks for an earlier write up to this many blocks before each mark. */
export const ANTHROPIC_LOOKBACK_BLOCKS = 20
/** OpenAI caches from 1024 tokens, in steps of 128. */
export const OPENAI_MIN_TOKENS = 1024
export const OPENAI_STEP_TOKENS = 128

const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const

/** The three providers' caches, each remembering what earlier requests wrote. */
export interface CacheRules {
  /** Anthropic Messages: marks, prefix hashes per block, the lookback, TTLs and the model's minimum. */
  anthropic(body: Obj): AnthropicUsage
  /** Every input token of a Messages request, as `count_tokens` answers. */
  anthropicCount(body: Obj): number
  /** OpenAI (Responses or Chat): automatic prefix caching from 1024 tokens in steps of 128, per `prompt_cache_key`. */
  openai(body: Obj, api: 'responses' | 'chat'): { input: number; cached: number }
  /** Gemini: implicit caching of a shared prefix at or above the model's minimum. */
  gemini(body: Obj, model: string): { prompt: number; cached: number }
}

/** A fresh set of caches. */
export function createCacheRules(options: CacheRulesOptions = {}): CacheRules {
  const now = options.now ?? Date.now
  const automaticTtl = options.automaticTtlMs ?? 5 * 60_000
  const anthropicEntries = new Map<string, { expires: number; ttl: number }>() // by prefix hash
  const automaticEntries = new Map<string, { text: string; expires: number }[]>() // partition → prefixes

  function anthropic(body: Obj): AnthropicUsage {
    const model = String(body.model)
    const blocks = anthropicBlocks(body)
    let hash = hashTextOnce(`model ${model}`)
    let tokens = 0
    const prefix = blocks.map((b) => {
      // The mark itself is not content: moving it does not change the prefix.
      const { cache_control: _mark, ...content } = b.block
      hash = hashTextOnce(`${hash}\n${JSON.stringify(content)}`)
      tokens += estimateTokens(content)
      return { hash, tokens }
    })
    const total = tokens
    const marks = blocks.flatMap((b, i) => (b.ttl === undefined ? [] : [{ i, ttl: b.ttl }])).slice(0, 4)
    const minimum = cacheMinimum('anthropic', model).minTokens
    const t = now()
    let read = 0
    let readHash: string | undefined
    for (const mark of marks) {
      for (let j = mark.i; j >= 0 && j > mark.i - ANTHROPIC_LOOKBACK_BLOCKS; j--) {
        const entry = anthropicEntries.get(prefix[j]!.hash)
        if (entry !== undefined && entry.expires > t && prefix[j]!.tokens > read) {
          read = prefix[j]!.tokens
          readHash = prefix[j]!.hash
        }
      }
    }
    let write = 0
    const written = { '5m': 0, '1h': 0 }
    for (const mark of marks) {
      const at = prefix[mark.i]!
      if (at.tokens < minimum) continue // a shorter prefix is silently not cached
      const ttl = Math.max(TTL_MS[mark.ttl], anthropicEntries.get(at.hash)?.ttl ?? 0)
      anthropicEntries.set(at.hash, { expires: t + ttl, ttl })
      const added = Math.max(0, at.tokens - read - write)
      write += added
      written[mark.ttl] += added
    }
    // A read refreshes the entry it read, for its own time to live.
    const hit = readHash === undefined ? undefined : anthropicEntries.get(readHash)
    if (hit !== undefined) hit.expires = t + hit.ttl
    return {
      input_tokens: total - read - write,
      cache_creation_input_tokens: write,
      cache_read_input_tokens: read,
      output_tokens: 1,
      cache_creation: { ephemeral_5m_input_tokens: written['5m'], ephemeral_1h_input_tokens: written['1h'] },
    }
  }

  /** The longest prefix (in characters) `text` shares with a live entry of `partition`; `text` is then kept. */
  function automatic(partition: string, text: string): number {
    const t = now()
    const entries = (automaticEntries.get(partition) ?? []).filter((e) => e.expires > t)
    let best = 0
    for (const entry of entries) {
      let n = 0
      const max = Math.min(entry.text.length, text.length)
      while (n < max && entry.text.charCodeAt(n) === text.charCodeAt(n)) n++
      best = Math.max(best, n)
      if (n > 0) entry.expires = t + automaticTtl
    }
    automaticEntries.set(partition, [
      ...entries.filter((e) => e.text !== text),
      { text, expires: t + automaticTtl },
    ])
    return best
  }

  return {
    anthropic,
    anthropicCount: (body) => anthropicBlocks(body).reduce((sum, b) => sum + estimateTokens(b.block), 0),
    openai(body, api) {
      const elements = openaiOrder(body, api)
      const text = elements.map((e) => JSON.stringify(e)).join('')
      const input = Math.ceil(text.length / 4)
      const shared = Math.floor(
        automatic(`openai ${String(body.model)} ${String(body.prompt_cache_key ?? '')}`, text) / 4,
      )
      if (input < OPENAI_MIN_TOKENS || shared < OPENAI_MIN_TOKENS) return { input, cached: 0 }
      const steps = Math.floor((shared - OPENAI_MIN_TOKENS) / OPENAI_STEP_TOKENS)
      return { input, cached: OPENAI_MIN_TOKENS + steps * OPENAI_STEP_TOKENS }
    },
    gemini(body, model) {
      const elements = [
        body.systemInstruction,
        body.tools,
        ...(Array.isArray(body.contents) ? body.contents : []),
      ]
      const text = elements
        .filter((e) => e !== undefined)
        .map((e) => JSON.stringify(e))
        .join('')
      const prompt = Math.ceil(text.length / 4)
      const shared = Math.floor(automatic(`gemini ${model}`, text) / 4)
      return { prompt, cached: shared >= cacheMinimum('gemini', model).minTokens ? shared : 0 }
    },
  }
}

/** A Messages request's blocks in cache order (tools, system, each message's content), each with the TTL of its mark. */
function anthropicBlocks(body: Obj): { block: Obj; ttl?: '5m' | '1h' }[] {
  const out: { block: Obj; ttl?: '5m' | '1h' }[] = []
  const push = (block: Obj, extra: Obj = {}) => {
    const mark = block.cache_control
    out.push({
      block: { ...extra, ...block },
      ...(isObj(mark) ? { ttl: mark.ttl === '1h' ? '1h' : '5m' } : {}),
    })
  }
  for (const tool of Array.isArray(body.tools) ? body.tools : []) if (isObj(tool)) push(tool)
  if (typeof body.system === 'string') push({ type: 'text', text: body.system })
  else if (Array.isArray(body.system)) for (const b of body.system) if (isObj(b)) push(b)
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isObj(message)) continue
    const content =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content
    for (const b of Array.isArray(content) ? content : []) if (isObj(b)) push(b, { role: message.role })
  }
  // Automatic caching: a top-level mark closes the last block.
  const top = body.cache_control
  const last = out.at(-1)
  if (isObj(top) && last !== undefined) last.ttl = top.ttl === '1h' ? '1h' : '5m'
  return out
}

/** An OpenAI request's elements in the order the parser reads them: instructions, tools, the conversation. */
function openaiOrder(body: Obj, api: 'responses' | 'chat'): unknown[] {
  const tools = Array.isArray(body.tools) ? body.tools : []
  if (api === 'responses') {
    const input = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input : []
    return [body.instructions ?? '', ...tools, ...input]
  }
  const messages = Array.isArray(body.messages) ? body.messages : []
  let lead = 0
  while (lead < messages.length && ['system', 'developer'].includes((messages[lead] as Obj)?.role as string))
    lead++
  return [...messages.slice(0, lead), ...tools, ...messages.slice(lead)]
}
