import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'
import { compareVersions, parseModeSpec, resolveProfile } from './profiles.js'

afterAll(removeFixtures)

describe('version profiles', () => {
  it('defaults to the newest observed version and names the profile', () => {
    expect(resolveProfile('claude')).toMatchObject({ version: '2.1.332', range: '2.1.277 and later' })
    expect(resolveProfile('claude', '2.1.276')).toMatchObject({
      range: 'before 2.1.277',
      behaviour: { agentsMd: false },
    })
    expect(resolveProfile('claude', '2.1.277')).toMatchObject({ behaviour: { agentsMd: true } })
    expect(resolveProfile('opencode', '1.1.34')).toMatchObject({ behaviour: { lazyAgentsMd: false } })
    expect(resolveProfile('opencode', '1.1.53')).toMatchObject({ behaviour: { lazyAgentsMd: true } })
    expect(resolveProfile('sysprompt')).toBeNull()
  })

  it('models a release newer than the newest observed by the newest, and says which', () => {
    expect(resolveProfile('claude', '9.0.0')).toMatchObject({
      version: '9.0.0',
      modelledAs: '2.1.332',
      range: '2.1.277 and later',
      behaviour: { agentsMd: true },
    })
    expect(resolveProfile('claude', '2.1.332')).not.toHaveProperty('modelledAs')
  })

  it('refuses a malformed or versionless-mode version with the known profiles', () => {
    expect(() => resolveProfile('claude', '2.1')).toThrow(
      /claude@2\.1: not a version .*known: codex: every version \(newest observed 0\.171\.0\); claude: before 2\.1\.277, 2\.1\.277 and later/,
    )
    expect(() => resolveProfile('sysprompt', '1.0.0')).toThrow(/sysprompt mode has no versions/)
  })

  it('orders versions numerically and splits mode specs (property)', () => {
    const version = fc.tuple(fc.nat(999), fc.nat(999), fc.nat(999)).map((v) => v.join('.'))
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(Math.sign(compareVersions(a, b))).toBe(-Math.sign(compareVersions(b, a)))
        expect(compareVersions(a, a)).toBe(0)
        expect(parseModeSpec(`claude@${a}`)).toEqual({ mode: 'claude', version: a })
      }),
    )
    expect(compareVersions('2.1.100', '2.1.99')).toBeGreaterThan(0)
  })

  it('claude: AGENTS.md is read as the fallback from 2.1.277, never before', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'agents\n' })
    const home = await emptyHome()
    const options = { cwd: repo, home, mode: 'claude' as const, fsRoot: repo }
    const before = await discoverInstructions({ ...options, harnessVersion: '2.1.276' })
    const from = await discoverInstructions({ ...options, harnessVersion: '2.1.277' })
    expect(before.files).toEqual([])
    expect(from.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
    const why = await explainInstructions({
      ...options,
      harnessVersion: '2.1.200',
      file: join(repo, 'AGENTS.md'),
    })
    expect(why).toMatchObject({ status: 'skipped', code: 'fallback-unused' })
    expect(why.reason).toContain('the Claude Code 2.1.200 profile, before 2.1.277')
    expect(why.profile).toBe(
      'claude 2.1.200 (before 2.1.277: AGENTS.md is never read (no instructionFiles setting yet))',
    )
    expect(before.profile).toMatchObject({ version: '2.1.276', range: 'before 2.1.277' })
  })

  it('opencode: AGENTS.md below cwd is on demand from 1.1.53, absent before', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'root\n', 'pkg/AGENTS.md': 'pkg\n' })
    const options = { cwd: repo, home: await emptyHome(), mode: 'opencode' as const }
    const before = await discoverInstructions({ ...options, harnessVersion: '1.1.34' })
    const from = await discoverInstructions({ ...options, harnessVersion: '1.1.53' })
    expect(before.onDemand).toEqual([])
    expect(from.onDemand.map((f) => f.path)).toEqual([join(repo, 'pkg/AGENTS.md')])
    const why = await explainInstructions({
      ...options,
      harnessVersion: '1.1.34',
      file: join(repo, 'pkg/AGENTS.md'),
    })
    expect(why).toMatchObject({ status: 'skipped', code: 'outside-walk' })
  })
})
