import { describe, expect, it } from 'vitest'
import { BodyCopy } from './body-copy.js'
import { PreviousResponses, prepareDiagnosed } from './diagnose.js'

async function* chunksOf(...chunks: string[]): AsyncGenerator<Buffer> {
  for (const chunk of chunks) yield Buffer.from(chunk)
}

async function collect(body: Buffer | AsyncIterable<Buffer>): Promise<string> {
  if (Buffer.isBuffer(body)) return body.toString('utf8')
  const chunks: Buffer[] = []
  for await (const chunk of body) chunks.push(chunk)
  return Buffer.concat(chunks).toString('utf8')
}

describe('PreviousResponses', () => {
  it('forgets the least recently used conversation past its limit', async () => {
    const previous = new PreviousResponses(2)
    previous.set('a', Promise.resolve('msg_a'))
    previous.set('b', Promise.resolve('msg_b'))
    await previous.get('a') // a is now the most recent
    previous.set('c', Promise.resolve('msg_c'))
    expect(previous.size).toBe(2)
    expect(previous.get('b')).toBeUndefined()
    expect(await previous.get('a')).toBe('msg_a')
    expect(await previous.get('c')).toBe('msg_c')
  })

  it('keeps the id before a response that had none or could not be read', async () => {
    const previous = new PreviousResponses()
    previous.set('a', Promise.resolve('msg_1'))
    previous.set('a', Promise.resolve(undefined))
    expect(await previous.get('a')).toBe('msg_1')
    previous.set('a', Promise.reject(new Error('undecodable')))
    expect(await previous.get('a')).toBe('msg_1')
    previous.set('a', Promise.resolve('msg_2'))
    expect(await previous.get('a')).toBe('msg_2')
  })
})

describe('prepareDiagnosed', () => {
  const pairs = [['content-type', 'application/json']] as const

  it('forwards a body past the copy cap as sent, still streaming, every byte counted', async () => {
    const previous = new PreviousResponses()
    const body = '{"model":"m","messages":[{"role":"user","content":"a long one"}]}'
    const copy = new BodyCopy(16)
    const source = chunksOf(body.slice(0, 10), body.slice(10, 20), body.slice(20))
    const forward = await prepareDiagnosed('anthropic.messages', source, copy, undefined, pairs, {}, previous)
    expect(forward.headers).toEqual(pairs)
    expect(forward.conversation).toBeUndefined()
    expect(Buffer.isBuffer(forward.body)).toBe(false)
    expect(await collect(forward.body)).toBe(body)
    expect(copy.truncated).toBe(true)
    expect(copy.wireLength).toBe(body.length)
  })

  it('forwards a body in an unknown encoding as sent', async () => {
    const previous = new PreviousResponses()
    const body = '{"model":"m","messages":[]}'
    const source = chunksOf(body)
    const forward = await prepareDiagnosed(
      'anthropic.messages',
      source,
      new BodyCopy(),
      'x-custom',
      pairs,
      {},
      previous,
    )
    expect(forward.headers).toEqual(pairs)
    expect(await collect(forward.body)).toBe(body)
  })
})
