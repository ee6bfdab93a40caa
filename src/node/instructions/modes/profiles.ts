import type { InstructionMode } from '../discovery-options.js'
import type { HarnessProfileInfo, ProfileBehaviour } from '../discovery-results.js'

export type { ProfileBehaviour } from '../discovery-results.js'

/** One version range of a harness whose behaviour sysprompt models: data, listed oldest first per mode. */
export interface HarnessProfile {
  mode: InstructionMode
  /** First version it applies to (inclusive); absent: every version before `until`. */
  from?: string
  /** First version it no longer applies to; absent: up to the newest observed version. */
  until?: string
  /** What differs in this range, in a sentence. */
  changes: string
  /** Where the behaviour was seen: a version run against a mock server, or a release note. */
  observed: string
  behaviour: Partial<ProfileBehaviour>
}

/** The newest version of each harness that was run and recorded (`scripts/record-harness/`): the default profile. */
export const NEWEST_OBSERVED: Readonly<Partial<Record<InstructionMode, string>>> = {
  codex: '0.171.0',
  claude: '2.1.332',
  gemini: '0.61.0',
  pi: '1.6.0',
  opencode: '1.18.33',
}

export const PROFILES: readonly HarnessProfile[] = [
  // Claude Code: AGENTS.md is read when no CLAUDE.md, .claude/CLAUDE.md or CLAUDE.local.md exists, from 2.1.277
  // (ANCHORS, "Harness changes": release notes); the agents-md plugin and its instructionFiles option observed
  // in the published 2.1.332 package, recorded on 2.1.332.
  {
    mode: 'claude',
    until: '2.1.277',
    changes: 'AGENTS.md is never read (no instructionFiles setting yet)',
    observed: 'release notes of 2.1.277 (ANCHORS)',
    behaviour: { agentsMd: false },
  },
  {
    mode: 'claude',
    from: '2.1.277',
    changes: 'AGENTS.md is read by instructionFiles, by default when no CLAUDE.md exists on the walk',
    observed: 'run on 2.1.332',
    behaviour: { agentsMd: true },
  },
  // opencode: AGENTS.md below cwd loaded with the read tool's result (opencode PR 10678). Observed in the published
  // opencode-linux-x64 binaries: 1.1.27 and 1.1.34 carry no `InstructionPrompt.resolve`, 1.1.53 and 1.2.1 do; the
  // versions between 1.1.34 and 1.1.53 were not available to inspect, so they are modelled as without it.
  {
    mode: 'opencode',
    until: '1.1.53',
    changes: 'files below cwd are never loaded (no lazy AGENTS.md)',
    observed: 'the published 1.1.34 package carries no lazy instruction loading',
    behaviour: { lazyAgentsMd: false },
  },
  {
    mode: 'opencode',
    from: '1.1.53',
    changes: 'reading a file loads the AGENTS.md files between it and cwd (lazy, with the tool result)',
    observed: 'run on 1.18.33; the code is present in the published 1.1.53 package',
    behaviour: { lazyAgentsMd: true },
  },
  {
    mode: 'codex',
    changes: 'no change in instruction handling known',
    observed: 'run on 0.171.0',
    behaviour: {},
  },
  {
    mode: 'gemini',
    changes: 'no change in instruction handling known',
    observed: 'run on 0.61.0',
    behaviour: {},
  },
  // pi: the package @mariozechner/pi-coding-agent stops at 0.73.1; @earendil-works/pi-coding-agent carries on. Its
  // CHANGELOG dates each change inside 0.7x-0.9x (trust 0.79.0, non-files skipped 0.82.1, nested worktrees 0.83.0,
  // AGENTS.override.md 0.84.0, XML sections from 0.75.4 on); only 0.73.1 and 1.6.0 were read and run, so the
  // releases between are modelled by the older profile.
  {
    mode: 'pi',
    until: '1.0.0',
    changes:
      'AGENTS.md, AGENTS.MD, CLAUDE.md, CLAUDE.MD per directory; files under "# Project Context" and "## path" headings; the project\'s .pi/SYSTEM.md read without a trust decision',
    observed: 'run on 0.73.1 (@mariozechner/pi-coding-agent)',
    behaviour: {},
  },
  {
    mode: 'pi',
    from: '1.0.0',
    changes:
      "AGENTS.override.md first in every directory; sections joined by a blank line (<addendum>, <project_context>, <cwd>); project trust gates .pi/SYSTEM.md and .pi/APPEND_SYSTEM.md; a nested linked worktree shadows its main root's file",
    observed: 'run on 1.6.0 (@earendil-works/pi-coding-agent)',
    behaviour: { piOverride: true, piSections: true, piTrust: true, piWorktree: true },
  },
]

const VERSION = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$/

/** `a` before `b` (both `MAJOR.MINOR.PATCH`): negative; equal: 0. */
export function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number)
  const y = b.split('.').map(Number)
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! - y[i]!
  return 0
}

function rangeWords(profile: HarnessProfile): string {
  if (profile.from !== undefined && profile.until !== undefined)
    return `${profile.from} up to ${profile.until}`
  if (profile.from !== undefined) return `${profile.from} and later`
  if (profile.until !== undefined) return `before ${profile.until}`
  return 'every version'
}

/** The known profiles of a mode with versions, as a user reads them (`claude: before 2.1.277, 2.1.277 and later (newest observed 2.1.332)`). */
function knownProfiles(mode: InstructionMode): string {
  const list = PROFILES.filter((p) => p.mode === mode)
  return `${mode}: ${list.map(rangeWords).join(', ')} (newest observed ${NEWEST_OBSERVED[mode]})`
}

/**
 * The profile of `mode` at `version` (default: the newest observed). A
 * version newer than the newest observed one gets the newest's profile,
 * with `modelledAs` naming it. A malformed version, or a version for a mode
 * without profiles, throws a `TypeError` whose message lists the known
 * profiles.
 */
export function resolveProfile(mode: InstructionMode, version?: string): HarnessProfileInfo | null {
  const newest = NEWEST_OBSERVED[mode]
  if (newest === undefined) {
    if (version === undefined) return null
    throw new TypeError(`${mode}@${version}: ${mode} mode has no versions; use --mode ${mode}`)
  }
  const wanted = version ?? newest
  const all = `known: ${INSTRUCTION_PROFILE_MODES.map(knownProfiles).join('; ')}`
  if (!VERSION.test(wanted))
    throw new TypeError(
      `${mode}@${wanted}: not a version (MAJOR.MINOR.PATCH, e.g. ${mode}@${newest}); ${all}`,
    )
  // A release newer than the newest observed one is modelled by the newest (a release follower meets one every
  // week); the profile says so, and discovery warns.
  const newer = compareVersions(wanted, newest) > 0
  const modelled = newer ? newest : wanted
  const profile = PROFILES.find(
    (p) =>
      p.mode === mode &&
      (p.from === undefined || compareVersions(modelled, p.from) >= 0) &&
      (p.until === undefined || compareVersions(modelled, p.until) < 0),
  )!
  return {
    mode,
    version: wanted,
    ...(newer ? { modelledAs: newest } : {}),
    range: rangeWords(profile),
    changes: profile.changes,
    observed: profile.observed,
    behaviour: { agentsMd: true, lazyAgentsMd: true, ...profile.behaviour },
  }
}

const INSTRUCTION_PROFILE_MODES = Object.keys(NEWEST_OBSERVED) as InstructionMode[]

/**
 * Splits `--mode` text into the mode and its version: `claude@2.1.200` →
 * `{ mode: 'claude', version: '2.1.200' }`; `claude` → no version.
 */
export function parseModeSpec(text: string): { mode: string; version?: string } {
  const at = text.indexOf('@')
  return at === -1 ? { mode: text } : { mode: text.slice(0, at), version: text.slice(at + 1) }
}
