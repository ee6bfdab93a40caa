import { basename, dirname, join } from 'node:path'
import { DEFAULT_MAX_BYTES } from '../budget.js'
import type { DiscoveryContext } from '../context.js'
import { dirsDown } from '../git-root.js'
import { trimInlined } from '../import-spans.js'
import { firstPresent, type ModeRules, type PlannedEntry, plannedEntry, uniqueNames } from '../plan.js'
import { isFile, loadFound } from '../read.js'

const isBlank = (text: string): boolean => text.trim().length === 0

/**
 * `codex` mode: Codex CLI as observed (ANCHORS, Codex CLI 0.171.0). Rules:
 * - global: `$CODEX_HOME/AGENTS.override.md`, else `$CODEX_HOME/AGENTS.md`
 *   (`CODEX_HOME` from the `env` option, default `~/.codex`), the first
 *   that is not blank;
 * - settings (`harness-config/`): `project_doc_max_bytes` and
 *   `project_doc_fallback_filenames` from `$CODEX_HOME/config.toml`, then
 *   each `.codex/config.toml` from the git root down to cwd once the user
 *   trusted the project, then `harnessConfig`; `names` and `maxBytes` win;
 * - project walk from the git root (or the `root` option) down to cwd;
 *   outside a git repository, cwd alone;
 * - per directory the first of `AGENTS.override.md`, `AGENTS.md`, then the
 *   configured fallbacks (`names`); one file per directory; an override
 *   wins only in its own directory;
 * - blank files are skipped;
 * - order: global, then root → cwd;
 * - no imports: an `@path` line stays text;
 * - cap: 32 KiB (`maxBytes`, Codex's `project_doc_max_bytes`; 0 turns
 *   project files off) over project files only, spent root first, cut at a
 *   byte with no notice and the rest dropped. Reproduced, so the text is
 *   what Codex sends; a diagnostic names every cut so it is not silent here.
 */
export const codexMode: ModeRules = {
  async plan(context) {
    const names = uniqueNames(['AGENTS.override.md', 'AGENTS.md', ...(context.options.names ?? [])])
    const dirs = dirsDown(context.gitRoot ?? context.cwd, context.cwd)
    context.candidates = names
    context.walk = {
      dirs,
      description:
        context.gitRoot === null
          ? `only the working directory ${context.cwd} (there is no git root)`
          : `the directories from ${context.boundaryWords()} down to the working directory ${context.cwd}`,
    }
    const entries: PlannedEntry[] = []
    const global = await globalEntry(context)
    if (global !== undefined) entries.push(global)
    for (const dir of dirs) {
      const path = await firstPresent(context, dir, names)
      if (path === undefined) continue
      const loaded = await loadFound(context, path, context.confinementFor(dir))
      if (loaded === undefined) continue
      const entry = await plannedEntry(context, loaded, 'project', {
        blank: { when: isBlank, reason: 'it is blank, and Codex skips blank files' },
      })
      if (entry === undefined) continue
      const fallback = context.setting('project_doc_fallback_filenames')
      if (
        fallback !== undefined &&
        context.options.names === fallback.value &&
        names.indexOf(basename(path)) > 1
      )
        entry.setBy = fallback.source
      entries.push(entry)
    }
    return {
      entries,
      cap: { kind: 'root-first-silent', maxBytes: context.options.maxBytes ?? DEFAULT_MAX_BYTES },
    }
  },
}

async function globalEntry(context: DiscoveryContext): Promise<PlannedEntry | undefined> {
  const paths =
    context.options.globalFiles ??
    ['AGENTS.override.md', 'AGENTS.md'].map((name) =>
      // loadHarnessSettings sets codexHome in codex mode (CODEX_HOME, else ~/.codex).
      join(context.settings.codexHome!, name),
    )
  let chosen: PlannedEntry | undefined
  for (const path of paths) {
    if (!(await isFile(context, path))) continue
    if (chosen !== undefined) {
      context.skip(
        path,
        'name-lost',
        `${context.display(chosen.path)} is Codex's global file: only the first non-blank one is used`,
      )
      continue
    }
    const loaded = await loadFound(context, path, [dirname(path)], 'global')
    if (loaded === undefined) continue
    // Codex trims its global instructions (project files are kept as read).
    chosen = await plannedEntry(context, loaded, 'global', {
      shape: trimInlined,
      blank: { when: isBlank, reason: 'it is blank, and Codex uses the first non-blank global file' },
    })
  }
  return chosen
}
