import { beforeEach, describe, expect, it, vi } from 'vitest'
import * as yaml from 'yaml'

// The YAML parser loads the first time a fragment has front matter, through
// the loader the node layer registers; a fresh module per test starts with
// none (the test setup registers Node's on the shared one).

type FragmentModule = typeof import('./fragment.js')
let fragment: FragmentModule

beforeEach(async () => {
  vi.resetModules()
  fragment = await import('./fragment.js')
})

const WITH = '---\norder: 5\n---\nbody\n'
const WITHOUT = '# no front matter\n\nbody\n'

describe('front matter YAML, loaded on first use', () => {
  it('a fragment without front matter never loads the parser; the first with front matter loads it once', () => {
    const load = vi.fn(() => yaml)
    fragment.registerFrontMatterYaml(load)
    expect(fragment.parseFragment(WITHOUT, { file: 'a.md' }).fragment?.body).toBe(WITHOUT)
    expect(load).not.toHaveBeenCalled()
    expect(fragment.parseFragment(WITH, { file: 'b.md' }).fragment?.order).toBe(5)
    expect(fragment.parseFragment(WITH, { file: 'c.md' }).fragment?.order).toBe(5)
    expect(load).toHaveBeenCalledTimes(1)
  })

  it('without a loader, front matter throws naming the call to make (not a problem of the file); after it, parses', async () => {
    expect(fragment.parseFragment(WITHOUT, { file: 'a.md' }).errors).toEqual([])
    expect(() => fragment.parseFragment(WITH, { file: 'b.md' })).toThrow(/await loadFrontMatterYaml\(\)/)
    await fragment.loadFrontMatterYaml()
    expect(fragment.parseFragment(WITH, { file: 'b.md' }).fragment?.order).toBe(5)
  })

  it('the disposer removes only its own loader', () => {
    const first = vi.fn(() => yaml)
    const dispose = fragment.registerFrontMatterYaml(first)
    const second = vi.fn(() => yaml)
    fragment.registerFrontMatterYaml(second)
    dispose()
    fragment.parseFragment(WITH, { file: 'b.md' })
    expect(first).not.toHaveBeenCalled()
    expect(second).toHaveBeenCalledTimes(1)
  })

  it('the node layer registers its loader on import: a fragment parses with no setup of its own', async () => {
    vi.resetModules()
    await import('../node/front-matter-yaml.js')
    const fresh: FragmentModule = await import('./fragment.js')
    expect(fresh.parseFragment(WITH, { file: 'b.md' }).fragment?.order).toBe(5)
  })
})
