import { isAbsolute, relative } from 'node:path'
import picomatch from 'picomatch/posix.js'
import type { Fragment } from '../shared/fragment.js'

export interface SelectRulesOptions {
  /** Absolute working paths are made relative to it; relative ones are taken as relative to it already. */
  root?: string
}

/** Why a rule is in or out (for `sysprompt explain`). */
export type RuleVerdict =
  | { applies: false; reason: 'disabled' }
  | { applies: true; reason: 'always' }
  | { applies: true; reason: 'matched'; path: string; glob: string }
  | { applies: false; reason: 'excluded'; path: string; glob: string }
  | { applies: false; reason: 'no-match' }

type Matcher = (path: string) => string | undefined

const matchers = new WeakMap<Fragment, { paths: Matcher; excludes: Matcher }>()

/**
 * The rules that apply to the working context (SPEC §6 project rules), in
 * the order given. A rule applies when it is not `enabled: false` and
 * either has no `paths` (it always applies; `excludes` only narrow `paths`)
 * or some working path matches one of its `paths` globs and none of its
 * `excludes` globs. Globs are picomatch globs relative to the project root,
 * `/`-separated, matching dot files too; a leading `./` or `/` is ignored.
 */
export function selectRules(
  rules: readonly Fragment[],
  workingPaths: readonly string[],
  options: SelectRulesOptions = {},
): Fragment[] {
  const paths = workingPaths.map((p) => normalisePath(p, options.root))
  return rules.filter((rule) => verdict(rule, paths).applies)
}

/** Why `rule` is in or out for these working paths: the first path that decided it, and the glob. */
export function explainRule(
  rule: Fragment,
  workingPaths: readonly string[],
  options: SelectRulesOptions = {},
): RuleVerdict {
  return verdict(
    rule,
    workingPaths.map((p) => normalisePath(p, options.root)),
  )
}

function verdict(rule: Fragment, paths: readonly string[]): RuleVerdict {
  if (rule.enabled === false) return { applies: false, reason: 'disabled' }
  if (rule.paths === undefined) return { applies: true, reason: 'always' }
  const m = compiled(rule)
  let excluded: RuleVerdict | undefined
  for (const path of paths) {
    const glob = m.paths(path)
    if (glob === undefined) continue
    const exclude = m.excludes(path)
    if (exclude === undefined) return { applies: true, reason: 'matched', path, glob }
    excluded ??= { applies: false, reason: 'excluded', path, glob: exclude }
  }
  return excluded ?? { applies: false, reason: 'no-match' }
}

/** One matcher per glob list, compiled once per rule object; it returns the glob that matched. */
function compiled(rule: Fragment): { paths: Matcher; excludes: Matcher } {
  let m = matchers.get(rule)
  if (m === undefined) {
    m = { paths: matcher(rule.paths ?? []), excludes: matcher(rule.excludes ?? []) }
    matchers.set(rule, m)
  }
  return m
}

function matcher(globs: readonly string[]): Matcher {
  const tests = globs.map((glob) => ({ glob, test: picomatch(normaliseGlob(glob), { dot: true }) }))
  return (path) => tests.find((t) => t.test(path))?.glob
}

function normaliseGlob(glob: string): string {
  return glob.replace(/^(\.\/|\/)+/, '')
}

function normalisePath(path: string, root: string | undefined): string {
  let p = path
  if (root !== undefined && isAbsolute(p)) p = relative(root, p)
  return p.replace(/\\/g, '/').replace(/^(\.\/)+/, '')
}
