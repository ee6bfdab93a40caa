import { describe, expect, it } from 'vitest'
import { parseModeSpec, resolveProfile } from './profiles.js'

// SPEC §6 version profiles: `--mode claude@2.1.200`; a profile states only what its range changes.
describe('version profiles, defaults', () => {
  it('gives every switch a profile does not set its newest behaviour', () => {
    const newest = { agentsMd: true, lazyAgentsMd: true }
    for (const mode of ['codex', 'gemini'] as const) expect(resolveProfile(mode)!.behaviour).toEqual(newest)
    const pi1 = { piOverride: true, piSections: true, piTrust: true, piWorktree: true }
    expect(resolveProfile('pi')!.behaviour).toEqual({ ...newest, ...pi1 })
    expect(resolveProfile('pi', '0.73.1')!.behaviour).toEqual(newest)
    expect(resolveProfile('claude', '2.1.276')!.behaviour).toEqual({ agentsMd: false, lazyAgentsMd: true })
    expect(resolveProfile('opencode', '1.1.34')!.behaviour).toEqual({ agentsMd: true, lazyAgentsMd: false })
  })

  it('reads a mode without a version as that mode alone', () => {
    expect(parseModeSpec('opencode')).toEqual({ mode: 'opencode' })
    expect(parseModeSpec('claude@2.1.200')).toEqual({ mode: 'claude', version: '2.1.200' })
  })
})
