import { describe, expect, it } from 'vitest'
import { CompileError } from './errors.js'

describe('CompileError', () => {
  it('keeps its code, section and cause', () => {
    const cause = new Error('tables missing')
    const error = new CompileError('tokenizer-not-loaded', 'load it first', { section: 'rules', cause })
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({
      name: 'CompileError',
      code: 'tokenizer-not-loaded',
      message: 'load it first',
      section: 'rules',
    })
    expect(error.cause).toBe(cause)
  })

  it('has no cause property when given none', () => {
    const error = new CompileError('budget-impossible', 'raise the budget')
    expect(Object.hasOwn(error, 'cause')).toBe(false)
    expect(error.section).toBeUndefined()
    expect(Object.hasOwn(new CompileError('budget-impossible', 'x', { section: 's' }), 'cause')).toBe(false)
  })
})
