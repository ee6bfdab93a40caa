import { readdirSync, readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { TrafficEndpoint } from '../../compile/call-record.js'
import { MAX_BODY_BYTES, parseRequest, parseResponse, prefixHash, toRecordedPart } from './index.js'

const ENDPOINTS: TrafficEndpoint[] = [
  'anthropic.messages',
  'anthropic.count_tokens',
  'openai.responses',
  'openai.chat.completions',
  'gemini.generateContent',
  'gemini.streamGenerateContent',
]

function noThrow(body: Uint8Array | string): void {
  for (const endpoint of ENDPOINTS) {
    expect(typeof parseRequest(endpoint, body, {}, { path: '/v1beta/models/x:generateContent' }).ok).toBe(
      'boolean',
    )
    expect(typeof parseResponse(endpoint, body, { streamed: true }).ok).toBe('boolean')
    expect(typeof parseResponse(endpoint, body, { streamed: false }).ok).toBe('boolean')
  }
}

describe('untrusted bodies', () => {
  it('never throw: arbitrary bytes, text and JSON', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), noThrow), { numRuns: 200 })
    fc.assert(fc.property(fc.string({ maxLength: 300 }), noThrow), { numRuns: 200 })
    fc.assert(
      fc.property(fc.jsonValue(), (value) => noThrow(JSON.stringify(value))),
      { numRuns: 300 },
    )
    // Each endpoint's shape with arbitrary values where its fields go.
    const shaped = fc.record(
      {
        model: fc.jsonValue(),
        messages: fc.array(
          fc.record({ role: fc.constantFrom('user', 'system', 'assistant'), content: fc.jsonValue() }),
        ),
        input: fc.jsonValue(),
        contents: fc.array(
          fc.record({ role: fc.constantFrom('user', 'model'), parts: fc.array(fc.jsonValue()) }),
        ),
        tools: fc.jsonValue(),
        system: fc.jsonValue(),
        instructions: fc.jsonValue(),
        systemInstruction: fc.jsonValue(),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(shaped, (value) => noThrow(JSON.stringify(value))),
      { numRuns: 300 },
    )
  })

  it('refuses a body over 64 MiB, as text or bytes, before reading it', () => {
    const text = ' '.repeat(MAX_BODY_BYTES + 1)
    expect(parseRequest('anthropic.messages', text)).toEqual({
      ok: false,
      reason: `the body is larger than ${MAX_BODY_BYTES} bytes, the most a record reads`,
    })
    expect(
      parseResponse('openai.responses', new Uint8Array(MAX_BODY_BYTES + 1), { streamed: true }),
    ).toMatchObject({
      ok: false,
    })
    // Two-byte characters: under the limit in code units, over it in UTF-8.
    expect(parseRequest('anthropic.messages', 'é'.repeat(MAX_BODY_BYTES / 2 + 1))).toMatchObject({
      ok: false,
    })
  })

  it('refuses nesting past the limit, and bytes that are not UTF-8', () => {
    const deep = `{"model":"m","messages":${'['.repeat(300)}${']'.repeat(300)}}`
    expect(parseRequest('anthropic.messages', deep)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('nests deeper than 256'),
    })
    expect(parseRequest('openai.responses', new Uint8Array([0x7b, 0xff, 0x7d]))).toEqual({
      ok: false,
      reason: 'the body is not UTF-8 text',
    })
  })
})

const text = fc.string({ maxLength: 40 })
const anthropicBody = fc.record({
  model: text,
  tools: fc.uniqueArray(fc.record({ name: text, description: text }), {
    selector: (t) => t.name,
    maxLength: 4,
  }),
  system: fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 3 }),
  messages: fc.tuple(fc.array(text, { maxLength: 2 }), text).map(([reminders, prompt]) => [
    {
      role: 'user',
      content: [
        ...reminders.map((r) => ({ type: 'text', text: `<system-reminder>${r}</system-reminder>` })),
        { type: 'text', text: prompt },
      ],
    },
  ]),
})
const responsesBody = fc.record({
  model: text,
  instructions: text,
  input: fc.tuple(fc.array(text, { maxLength: 2 }), text).map(([files, prompt]) => [
    {
      role: 'user',
      content: [
        ...files.map((f) => ({ type: 'input_text', text: `# AGENTS.md instructions for ${f}` })),
        { type: 'input_text', text: prompt },
      ],
    },
  ]),
})

describe('re-serialised requests', () => {
  it('parse to the same parts, whatever the spacing and key order', () => {
    const cases: [TrafficEndpoint, fc.Arbitrary<Record<string, unknown>>][] = [
      ['anthropic.messages', anthropicBody],
      ['openai.responses', responsesBody],
    ]
    for (const [endpoint, arbitrary] of cases) {
      fc.assert(
        fc.property(arbitrary, (body) => {
          const compact = parseRequest(endpoint, JSON.stringify(body))
          const reordered = Object.fromEntries(Object.entries(body).reverse())
          const spaced = parseRequest(endpoint, new TextEncoder().encode(JSON.stringify(reordered, null, 2)))
          if (!compact.ok || !spaced.ok) throw new Error('a valid request failed to parse')
          expect(spaced.parts).toEqual(compact.parts)
          expect(spaced.messageHashes).toEqual(compact.messageHashes)
          expect(spaced.conversation).toBe(compact.conversation)
        }),
        { numRuns: 100 },
      )
    }
  })
})

describe('the parsers are pure', () => {
  it('import nothing from node:*', () => {
    const dir = import.meta.dirname
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts'))) {
      expect(readFileSync(`${dir}/${name}`, 'utf8'), name).not.toMatch(/from '(node:|fs|path)/)
    }
  })
})

describe('parts as a CallRecord keeps them', () => {
  it('hashes the prefix from the parts’ hashes and keys each text with the user’s secret', () => {
    const body = { model: 'm', system: 'be brief', tools: null, messages: [{ role: 'user', content: 'hi' }] }
    const parsed = parseRequest('anthropic.messages', JSON.stringify(body))
    if (!parsed.ok) throw new Error(parsed.reason)
    const [part] = parsed.parts
    expect(toRecordedPart(part!, 'key')).toEqual({
      section: 'system:1',
      kind: 'system',
      hash: part!.hash,
      keyedHash: expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/),
    })
    expect(toRecordedPart(part!, 'key').keyedHash).not.toBe(toRecordedPart(part!, 'other').keyedHash)
    expect(prefixHash(parsed.parts)).not.toBe(prefixHash([]))
  })
})
