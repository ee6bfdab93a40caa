import { basename, dirname, join, resolve } from 'node:path'
import type { DiscoveryContext } from './context.js'
import { runDiscovery } from './discover.js'
import type { LeftOut } from './ignore-files.js'
import type { DiscoverInstructionsOptions, InstructionExplanation } from './types.js'

/**
 * Says why one file was included, truncated or skipped by
 * `discoverInstructions` with the same options (SPEC §6): shadowed by an
 * override, another name won in its directory, outside the walk, over
 * budget, an import cycle, outside the root, and so on. `file` may be
 * absolute or relative to `cwd`; the answer carries a stable `code` and a
 * sentence a user can act on.
 */
export async function explainInstructions(
  options: DiscoverInstructionsOptions & { file: string },
): Promise<InstructionExplanation> {
  const { context } = await runDiscovery(options)
  const answer = await explain(context, options)
  const profile = context.profile
  return profile === null
    ? answer
    : { ...answer, profile: `${profile.mode} ${profile.version} (${profile.range}: ${profile.changes})` }
}

async function explain(
  context: DiscoveryContext,
  options: DiscoverInstructionsOptions & { file: string },
): Promise<InstructionExplanation> {
  const asked = resolve(options.cwd, options.file)
  const dir = await context.fs.realpath(dirname(asked)).catch(() => dirname(asked))
  const file = join(dir, basename(asked))
  const decided = context.decisions.get(file) ?? context.decisions.get(asked)
  const activation = context.activations.get(file) ?? context.activations.get(asked)
  if (decided !== undefined) return { file, ...decided, ...(activation && { activation }) }
  const shown = context.display(file)
  if (!context.candidates.includes(basename(file))) {
    return {
      file,
      status: 'skipped',
      code: 'not-a-candidate',
      reason: `${context.mode} mode reads only ${context.candidates.join(', ')} in each directory, and no loaded file imports ${shown}`,
    }
  }
  const left = leftOutAbove(context, dir)
  if (left !== undefined) {
    return {
      file,
      status: 'skipped',
      code: left.kind === 'ignored' ? 'ignored' : 'outside-walk',
      reason: `${context.mode} mode looks for nested files as the harness does, and ${context.display(left.dir)} is left out: ${left.words}`,
    }
  }
  if (!context.walk.dirs.includes(dir)) {
    return {
      file,
      status: 'skipped',
      code: 'outside-walk',
      reason: `${context.mode} mode reads ${context.walk.description}; ${dir} is not one of them`,
    }
  }
  return { file, status: 'skipped', code: 'missing', reason: `there is no file ${shown}` }
}

/** The nearest directory at or above `dir` that a nested walk left out, with why. */
function leftOutAbove(context: DiscoveryContext, dir: string): (LeftOut & { dir: string }) | undefined {
  for (let d = dir; ; d = dirname(d)) {
    const left = context.leftOut.get(d)
    if (left !== undefined) return { ...left, dir: d }
    if (d === context.root || dirname(d) === d) return undefined
  }
}
