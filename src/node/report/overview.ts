import { resolveTokenizer, withCountCache } from '../../compile/index.js'
import { nodeAdapters } from '../adapters.js'
import { memoFs } from '../fs-memo.js'
import { createContext } from '../instructions/create-context.js'
import { INSTRUCTION_MODES } from '../instructions/discovery-options.js'
import { dirsBelow } from '../instructions/on-demand.js'
import { type DiscoverAllOptions, discoverAll } from './harness-loads.js'
import { type HarnessInUse, harnessesInUse } from './harnesses.js'
import { type NeverLoaded, neverLoaded, ruleFiles } from './rule-files.js'
import { findSkills, type Skill } from './skills.js'

/** The first screen of `inspect` as data (its `--json` keys `harnesses`, `skills`, `neverLoaded`). */
export interface Overview {
  /** One entry per harness in use here, then one per group of AGENTS.md readers. */
  harnesses: HarnessInUse[]
  /** Project skills, each with the harnesses that list it (absolute `path` left out of the data). */
  skills: Omit<Skill, 'path'>[]
  /** Instruction-like files that no harness loads, with the reason. */
  neverLoaded: Omit<NeverLoaded, 'path'>[]
}

/**
 * Every harness's view of the project at once: what each loads at start
 * and later, the skills each lists, and what none of them reads. Runs each
 * mode's discovery with the options given (one walk of the tree per mode,
 * counts through the count cache).
 */
export async function overview(options: Omit<DiscoverAllOptions, 'modes'>): Promise<Overview> {
  const { cwd, root } = options
  // Four modes at a time: their reads overlap (one after another, the process mostly waits on the
  // file system), and the open files stay few.
  // One view of the tree for every mode: each directory listed, each file stat'ed and read once.
  const fs = memoFs(nodeAdapters().fs)
  const lanes = [0, 1, 2, 3].map((k) => INSTRUCTION_MODES.filter((_, i) => i % 4 === k))
  const loads = (await Promise.all(lanes.map((modes) => discoverAll({ ...options, modes, fs })))).flat()
  const tokenizer = withCountCache(resolveTokenizer(options.tokenizer), options.countCache)
  const skills = await findSkills(INSTRUCTION_MODES, cwd, root, tokenizer)
  const context = await createContext({ cwd: root, root, tokenizer: 'estimate', fs })
  const dirs = [root, ...(await dirsBelow(context, root))]
  const never = await neverLoaded(await ruleFiles(root), loads, root, dirs)
  return {
    harnesses: harnessesInUse(loads, root, skills, (text) => tokenizer.count(text)),
    skills: skills.map(({ path: _, ...rest }) => rest),
    neverLoaded: never.map(({ path: _, ...rest }) => rest),
  }
}
