import { dirname, join } from 'node:path'
import type { DiscoveryContext } from '../context.js'
import { dirsDown } from '../git-root.js'
import { firstPresent, type ModeRules, optionalCap, type PlannedEntry, plannedEntry } from '../plan.js'
import { isFile, loadFound } from '../read.js'
import { piSkillsSection } from './pi-skills.js'
import { projectTrust, type Trust } from './pi-trust.js'
import { shadowedRootFile } from './pi-worktree.js'

/** pi's names, in the order it tries them in each directory (0.73.1). */
const PI_NAMES: readonly string[] = ['AGENTS.md', 'AGENTS.MD', 'CLAUDE.md', 'CLAUDE.MD']
/** pi 1.x tries `AGENTS.override.md` first (CHANGELOG 0.84.0; `loadContextFileFromDir` of 1.6.0). */
const PI1_NAMES: readonly string[] = ['AGENTS.override.md', ...PI_NAMES]

/**
 * `pi` mode: the pi coding agent as observed (ANCHORS; run on 0.73.1 and
 * on 1.6.0, the version profile decides). Rules:
 * - global: the first of `AGENTS.md`, `AGENTS.MD`, `CLAUDE.md`, `CLAUDE.MD`
 *   (1.x: `AGENTS.override.md` before them) in `~/.pi/agent`
 *   (`PI_CODING_AGENT_DIR` is not consulted: pass `globalFiles` instead);
 * - project walk from cwd up to the file-system root (`fsRoot`), ignoring
 *   git; a file already loaded as the global one is not loaded again;
 *   a non-file named like a context file is passed over;
 * - per directory the first of the same names; one file per directory
 *   (`names` is ignored: pi's names are fixed);
 * - 1.x: in a linked git worktree nested inside its main repository, the
 *   main root's file of the name the worktree's root uses is left out;
 * - order: global, then outermost → cwd;
 * - no imports; no cap (an explicit `maxBytes` applies the nearest-first budget);
 * - `SYSTEM.md` replaces pi's base prompt and `APPEND_SYSTEM.md` is
 *   appended to it, each from `<cwd>/.pi/` (1.x: only in a trusted
 *   project, see `pi-trust.ts`), else `~/.pi/agent/` (the harness view
 *   carries them before the context files).
 */
export const piMode: ModeRules = {
  async plan(context) {
    const behaviour = context.profile?.behaviour
    const names = behaviour?.piOverride === true ? PI1_NAMES : PI_NAMES
    const dirs = dirsDown(context.fsRoot, context.cwd)
    context.candidates = names
    context.walk = {
      dirs,
      description: `every directory from the working directory ${context.cwd} up to the file-system root ${context.fsRoot}, ignoring git`,
    }
    const entries: PlannedEntry[] = []
    const globals =
      context.options.globalFiles ??
      [await firstPresent(context, join(context.home, '.pi', 'agent'), names)].filter((p) => p !== undefined)
    for (const path of globals) {
      const loaded = await loadFound(context, path, [dirname(path)], 'global')
      if (loaded !== undefined) entries.push(await plannedEntry(context, loaded, 'global'))
    }
    const seen = new Set(entries.map((entry) => entry.path))
    const shadow = behaviour?.piWorktree === true ? await shadowedRootFile(context, names) : undefined
    for (const dir of dirs) {
      const path = await firstPresent(context, dir, names)
      if (path === undefined) continue
      // Already loaded as the global file, which is what explain says of it.
      if (seen.has(path)) continue
      if (shadow !== undefined && path === shadow.path) {
        context.skip(
          path,
          'duplicate',
          `the linked worktree ${context.display(shadow.worktree)} lies inside its main repository and has its own ${context.display(shadow.own)}, which pi reads in its place`,
        )
        continue
      }
      const loaded = await loadFound(context, path, context.confinementFor(dir))
      if (loaded !== undefined) entries.push(await plannedEntry(context, loaded, 'project'))
    }
    const trust = behaviour?.piTrust === true ? await projectTrust(context) : undefined
    await promptFiles(context, trust)
    if (behaviour?.piSections === true) await skills(context, trust?.trusted ?? true)
    return { entries, cap: optionalCap(context) }
  },
}

/**
 * pi's `SYSTEM.md` (replaces its base prompt) and `APPEND_SYSTEM.md`
 * (appended to it): each from `<cwd>/.pi/`, else `~/.pi/agent/`
 * (pi `core/resource-loader`); its context files still follow. With
 * `trust` (pi 1.x) the project's file counts only in a trusted project.
 */
async function promptFiles(context: DiscoveryContext, trust: Trust | undefined): Promise<void> {
  let said = false
  for (const [name, slot, what] of [
    ['SYSTEM.md', 'replace', "replaces pi's base prompt"],
    ['APPEND_SYSTEM.md', 'append', "is appended to pi's base prompt"],
  ] as const) {
    const project = join(context.cwd, '.pi', name)
    const user = join(context.home, '.pi', 'agent', name)
    if (trust !== undefined && !trust.trusted && (await isFile(context, project))) {
      context.skip(project, 'untrusted', `pi does not trust this project: ${trust.why}`)
      if (!said) {
        const words = `pi reads ${context.display(project)} only in a trusted project, and does not trust this one: ${trust.why}. This view is the untrusted one.`
        context.report('harness-config', words, project, 'info')
        context.viewNotes.push(words)
      }
      said = true
    }
    const usable = trust === undefined || trust.trusted
    for (const [path, roots] of [
      [project, [context.root]],
      [user, [dirname(user)]],
    ] as const) {
      if (path === project && !usable) continue
      if (!(await isFile(context, path))) continue
      const loaded = await loadFound(context, path, roots)
      if (loaded === undefined) continue
      context.promptFiles[slot] = { path, text: loaded.text }
      context.decide(path, {
        status: 'included',
        code: 'included',
        reason: `it ${what} (${name} in ${context.display(dirname(path))})`,
      })
      if (path === project && (await isFile(context, user)))
        context.skip(
          user,
          'name-lost',
          `${context.display(project)} is used instead: pi reads the project's ${name} first`,
        )
      break
    }
  }
}

/**
 * pi 1.x lists skills in a `<skills>` section between the context files and
 * `<cwd>` (see `pi-skills.ts`); the view carries it. Past the search's
 * bound the view says the section is not reproduced and is inexact.
 */
async function skills(context: DiscoveryContext, trusted: boolean): Promise<void> {
  const section = await piSkillsSection(context, trusted)
  if (section === undefined) return
  if (section !== 'unmodelled') {
    context.piSkills = section.text
    return
  }
  context.unmodelled.push('its skills')
  const words =
    'pi lists skills in a <skills> section before <cwd>; there are too many skill directories to follow here, so this view leaves that section out and is not exact.'
  context.report('harness-config', words, undefined, 'info')
  context.viewNotes.push(words)
}
