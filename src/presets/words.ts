import type { FragmentManifestEntry } from '../compile/types.js'
import { byCodeUnit } from '../registry/tool-order.js'
import type { Fragment } from '../shared/fragment.js'
import { EMBEDDED_FRAGMENTS_JSON } from './embedded.generated.js'
import { PresetError } from './errors.js'
import { fragmentApplies } from './model-match.js'

let builtins: ReadonlyMap<string, Fragment> | undefined

function freezeFragment(fragment: Fragment): Fragment {
  for (const value of Object.values(fragment)) if (Array.isArray(value)) Object.freeze(value)
  Object.freeze(fragment.extra)
  return Object.freeze(fragment)
}

/** The built-in fragments parsed when they were embedded (no YAML at run time), by path. */
export function embeddedFragments(): Readonly<Record<string, Fragment>> {
  parsedEmbedded ??= JSON.parse(EMBEDDED_FRAGMENTS_JSON) as Record<string, Fragment>
  return parsedEmbedded
}
let parsedEmbedded: Record<string, Fragment> | undefined

/** The built-in fragments by id, read once from the embedded parse. */
function builtinTable(): ReadonlyMap<string, Fragment> {
  if (builtins !== undefined) return builtins
  const table = new Map<string, Fragment>()
  const parsed = embeddedFragments()
  for (const relPath of Object.keys(parsed).sort(byCodeUnit)) {
    const fragment = parsed[relPath]!
    table.set(fragment.id, freezeFragment(fragment))
  }
  builtins = table
  return table
}

/**
 * The preset fragments shipped with sysprompt (`presets/**\/*.md`, embedded
 * at build time), in id order, frozen. Ids come from the paths
 * (`layered/identity.md` → `layered.identity`); `source` is
 * `presets/<path>`. A catalog lists these; a user overrides one by giving a
 * fragment with the same id to a preset's `fragments` option.
 */
export function builtinPresetFragments(): readonly Fragment[] {
  return [...builtinTable().values()].sort((a, b) => byCodeUnit(a.id, b.id))
}

/**
 * The words one preset call reads: a fragment's trimmed body by id, taken
 * from the caller's `fragments` when one has that id (the last one wins, as a
 * later layer does in `loadFragments`), else from the built-in ones. A
 * caller's fragment with `models:` counts only when `model` matches one of
 * its globs ({@link fragmentApplies}; never when no model is given), so an
 * override written for one model family leaves the built-in words in place
 * for every other model. A fragment with `enabled: false` stands for no
 * words. `manifest()` lists every fragment read, in first-read order.
 */
export class PresetWords {
  private readonly overrides = new Map<string, Fragment>()
  private readonly read = new Map<string, Fragment>()

  constructor(
    private readonly preset: string,
    fragments: readonly Fragment[] | undefined,
    model?: string,
  ) {
    for (const fragment of fragments ?? []) {
      if (fragmentApplies(fragment, model)) this.overrides.set(fragment.id, fragment)
    }
  }

  private lookup(id: string): Fragment | undefined {
    return this.overrides.get(id) ?? builtinTable().get(id)
  }

  /** The fragment with this id: the caller's, else the built-in one; recorded as read. */
  fragment(id: string): Fragment {
    const fragment = this.lookup(id)
    if (fragment === undefined) {
      throw new PresetError(
        'missing-fragment',
        `${this.preset}: no preset fragment with id "${id}"; pass one in \`fragments\` or restore presets/${id.replaceAll('.', '/')}.md`,
      )
    }
    if (!this.read.has(id)) this.read.set(id, fragment)
    return fragment
  }

  /** The fragment's body, trimmed; `''` when it is disabled. */
  text(id: string): string {
    const fragment = this.fragment(id)
    return fragment.enabled === false ? '' : fragment.body.trim()
  }

  /** Every known fragment (caller's over built-in) whose id starts with `prefix`, in id order; not recorded as read. */
  withPrefix(prefix: string): Fragment[] {
    const ids = new Set([...builtinTable().keys(), ...this.overrides.keys()])
    return [...ids]
      .filter((id) => id.startsWith(prefix))
      .sort(byCodeUnit)
      .map((id) => this.lookup(id)!)
  }

  /** Records a fragment found through `withPrefix` as read. */
  use(fragment: Fragment): string {
    return this.text(fragment.id)
  }

  /** The fragments read so far, as compile manifest entries. */
  manifest(): FragmentManifestEntry[] {
    return [...this.read.values()].map((f) => ({
      id: f.id,
      source: f.source,
      contentHash: f.contentHash,
      dynamic: f.dynamic,
    }))
  }
}
