import { describe, expect, it } from 'vitest'
import { osErrorReason } from './run.js'

describe('OS errors on the command line', () => {
  it('gives a permission problem, a loop or a full disk its own reason with the path, not "unexpected"', () => {
    const error = (code: string) =>
      Object.assign(new Error(`${code}: something, open '/p/x'`), { code, path: '/p/x' })
    expect(osErrorReason(error('EACCES'))).toMatch(/^\/p\/x: permission denied; check that path/)
    expect(osErrorReason(error('ELOOP'))).toMatch(/^\/p\/x: a symbolic link loop;/)
    expect(osErrorReason(error('ENOSPC'))).toMatch(/^\/p\/x: no space left on the device;/)
  })

  it('leaves real bugs to the "unexpected" message', () => {
    expect(osErrorReason(new TypeError('x is undefined'))).toBeUndefined()
    expect(osErrorReason(Object.assign(new Error('EACCES'), { code: 'EACCES' }))).toBeUndefined()
  })
})
