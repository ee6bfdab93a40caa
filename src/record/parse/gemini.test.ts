import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hashText } from '../../shared/hash.js'
import { parseRequest, parseResponse } from './index.js'

// What Gemini CLI 0.61.0 sent on the nested tree in its first user content.
const project = readFileSync(
  join(import.meta.dirname, '../../../test/fixtures/harness/gemini@0.61.0/nested.first-user-message.txt'),
  'utf8',
)
const session =
  "<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nToday's date is Sunday.\nI'm currently working in the directory: /home/u/nested\n</session_context>"

const body = {
  systemInstruction: { role: 'user', parts: [{ text: 'You are Gemini CLI.' }] },
  tools: [{ functionDeclarations: [{ name: 'read_file' }, { name: 'glob' }] }, { googleSearch: {} }],
  contents: [{ role: 'user', parts: [{ text: session }, { text: project }, { text: 'hello' }] }],
}
const path = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse'

describe('Gemini requests', () => {
  it('reads the system instruction, each declared function, then the injected context', () => {
    const parsed = parseRequest('gemini.streamGenerateContent', JSON.stringify(body), {}, { path })
    if (!parsed.ok) throw new Error(parsed.reason)
    expect(parsed.parts.map((p) => [p.section, p.kind])).toEqual([
      ['system:1', 'system'],
      ['tool:read_file', 'tool'],
      ['tool:glob', 'tool'],
      ['tool:googleSearch', 'tool'],
      ['message:1', 'injected'],
    ])
    expect(parsed.parts[4]!.text).toBe(`${session}\n${project}`)
    expect(parsed.model).toBe('gemini-2.5-flash')
    expect(parsed.workingDirectory).toBe('/home/u/nested')
    expect(parsed.streamed).toBe(true)
    expect(parsed.conversation).toBe(hashText(JSON.stringify([{ text: 'hello' }])))
  })

  it('skips the model acknowledgement after a content that is all context', () => {
    const older = {
      contents: [
        { role: 'user', parts: [{ text: session }] },
        { role: 'model', parts: [{ text: 'Got it. Thanks for the context!' }] },
        { role: 'user', parts: [{ text: 'hello' }] },
      ],
    }
    const parsed = parseRequest('gemini.generateContent', JSON.stringify(older))
    if (!parsed.ok) throw new Error(parsed.reason)
    expect(parsed.model).toBe('')
    expect(parsed.messageHashes).toEqual([hashText(JSON.stringify(older.contents[2]))])
    expect(parsed.streamed).toBe(false)
  })

  it('refuses contents without parts', () => {
    expect(parseRequest('gemini.generateContent', '{"contents":[{"role":"user"}]}')).toMatchObject({
      ok: false,
    })
  })
})

describe('Gemini responses', () => {
  const last = {
    responseId: 'r1',
    usageMetadata: {
      promptTokenCount: 5000,
      cachedContentTokenCount: 4000,
      candidatesTokenCount: 5,
      thoughtsTokenCount: 2,
    },
  }

  it('reads the usage of the last streamed chunk, as SSE or as a JSON list', () => {
    const first = { responseId: 'r1', candidates: [{ content: { parts: [{ text: 'o' }] } }] }
    const expected = {
      ok: true,
      id: 'r1',
      usage: { inputTokens: 5000, cacheReadTokens: 4000, cacheWriteTokens: 0, outputTokens: 7 },
    }
    const sse = `data: ${JSON.stringify(first)}\r\n\r\ndata: ${JSON.stringify(last)}\r\n\r\n`
    expect(parseResponse('gemini.streamGenerateContent', sse, { streamed: true })).toEqual(expected)
    expect(
      parseResponse('gemini.streamGenerateContent', JSON.stringify([first, last]), { streamed: true }),
    ).toEqual(expected)
    expect(parseResponse('gemini.generateContent', JSON.stringify(last), { streamed: false })).toEqual(
      expected,
    )
  })
})
