import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import packageJson from '../../package.json' with { type: 'json' }
import { nodeVersionProblem, versionParts } from './node-version.js'

describe('nodeVersionProblem', () => {
  it('refuses Node 20 with one line naming the version the package needs', () => {
    expect(nodeVersionProblem('v20.20.2', '>=22.19')).toBe(
      'sysprompt needs Node.js 22.19 or later; this is Node.js 20.20.2.\n',
    )
  })

  it('refuses a 22 older than the minor, and takes the minor itself and every later release', () => {
    expect(nodeVersionProblem('v22.18.9', '>=22.19')).toContain('needs Node.js 22.19 or later')
    for (const version of ['v22.19.0', 'v22.23.5', 'v24.22.3', 'v26.12.1', 'v30.0.0'])
      expect(nodeVersionProblem(version, '>=22.19')).toBeUndefined()
  })

  it('reads the minimum from package.json, which is 22.19', () => {
    expect(packageJson.engines.node).toBe('>=22.19')
    expect(nodeVersionProblem(process.version, packageJson.engines.node)).toBeUndefined()
    expect(nodeVersionProblem('v22.18.0', packageJson.engines.node)).toContain('22.19')
  })

  it('never blocks on a version it cannot read', () => {
    expect(nodeVersionProblem('v22.19.0-nightly', '>=22.19')).toBeUndefined()
    expect(nodeVersionProblem('v18.0.0', '^22 || ^24')).toBeUndefined()
  })

  it('orders versions as numbers, part by part', () => {
    const part = fc.integer({ min: 0, max: 40 })
    fc.assert(
      fc.property(fc.tuple(part, part, part), fc.tuple(part, part, part), (have, need) => {
        const older =
          have[0] !== need[0]
            ? have[0] < need[0]
            : have[1] !== need[1]
              ? have[1] < need[1]
              : have[2] < need[2]
        const problem = nodeVersionProblem(`v${have.join('.')}`, `>=${need.join('.')}`)
        expect(problem !== undefined).toBe(older)
      }),
    )
  })

  it('parses the shapes engines and process.version use', () => {
    expect(versionParts('>=22.19')).toEqual([22, 19, 0])
    expect(versionParts('>= 22.19.1')).toEqual([22, 19, 1])
    expect(versionParts('v20.20.2')).toEqual([20, 20, 2])
    expect(versionParts('22')).toEqual([22, 0, 0])
    expect(versionParts('latest')).toBeUndefined()
  })
})
