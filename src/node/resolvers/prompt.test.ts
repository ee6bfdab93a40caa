import { describe, expect, it } from 'vitest'
import type { AssembleContext } from '../../registry/types.js'
import { promptResolver } from './prompt.js'

const resolver = promptResolver({
  cwdOf: (ctx: AssembleContext) => (ctx.cwd as string | undefined) ?? '/project',
})
const ALL = ['prompt:cwd', 'prompt:model', 'prompt:conversation_id', 'prompt:workspace_id']

describe('prompt resolver', () => {
  it('reads the assembly context', async () => {
    const values = await resolver.resolve(ALL, {
      cwd: '/project/src',
      model: 'gpt-5',
      conversationId: 'c1',
      workspaceId: 'w1',
    })
    expect(Object.fromEntries(values)).toEqual({
      'prompt:cwd': '/project/src',
      'prompt:model': 'gpt-5',
      'prompt:conversation_id': 'c1',
      'prompt:workspace_id': 'w1',
    })
  })

  it('leaves what the context does not carry absent, and the cwd at its default', async () => {
    // A harness may put anything in its context; a non-string is not a model id.
    const values = await resolver.resolve(ALL, { model: 42 } as unknown as AssembleContext)
    expect(Object.fromEntries(values)).toEqual({
      'prompt:cwd': '/project',
      'prompt:model': null,
      'prompt:conversation_id': null,
      'prompt:workspace_id': null,
    })
  })

  it('keeps an empty string present', async () => {
    expect((await resolver.resolve(['prompt:model'], { model: '' })).get('prompt:model')).toBe('')
  })

  it('never reads inherited properties or unlisted keys', async () => {
    const values = await resolver.resolve(['prompt:constructor', 'prompt:toString', 'prompt:provider'], {
      provider: 'openai',
    })
    expect([...values.values()]).toEqual([null, null, null])
  })

  it('describes its keys as session values', () => {
    expect(resolver.describe().map((i) => [i.key, i.stability])).toEqual([
      ['prompt:cwd', 'session'],
      ['prompt:model', 'session'],
      ['prompt:conversation_id', 'session'],
      ['prompt:workspace_id', 'session'],
    ])
  })
})
