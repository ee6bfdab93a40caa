import { describe, expect, it } from 'vitest'
import { PreviousResponses } from './diagnose.js'

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
