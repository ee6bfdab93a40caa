import picomatch from 'picomatch/posix.js'

/**
 * The one place a rule's globs are read and matched, for every convention
 * (issue 31): picomatch matches brace groups (`*.{ts,tsx}`) as alternatives
 * without expanding them, with the options of the tool whose globs they are.
 *
 * | syntax | tools | a text is | a pattern matches |
 * |---|---|---|---|
 * | `picomatch` | Cursor `globs`, Windsurf `globs`, Cline `paths:`, Amp `globs` | split on commas outside `{}` and `[]` | picomatch, dot files included, relative to the rule's base (a leading `./` or `/` dropped) |
 * | `vscode` | Copilot `applyTo` | split the same way (VS Code's `splitGlobAware`) | VS Code's glob: any case, dot files included, and a pattern not starting `/` or `**\/` gets `**\/` in front, since VS Code matches it against the whole path (`computeAutomaticInstructions.ts`, `_matches`) |
 * | `minimatch` | Continue `globs`, Kiro `fileMatchPattern` | whole: never split | minimatch's defaults (no dot files, case kept); a leading `!` excludes (Continue's `matchesGlobs`: some positive pattern and no negative one) |
 * | `gitignore` | Claude Code `paths:` | split on commas outside `{}`, in a text and in each list item (its `splitPathInFrontmatter`) | the `ignore` library Claude Code matches with: a pattern without a `/` matches a name at any depth, one with a `/` is anchored to the base, a match on a directory covers what is inside it, a trailing `/**` is dropped, `!` re-includes, the last match wins |
 *
 * Patterns keep the text their author wrote: `written` is what `inspect`
 * and `explain` show, and splitting it again gives `patterns` back.
 */
export type GlobSyntax = 'picomatch' | 'vscode' | 'minimatch' | 'gitignore'

/** A rule's globs: the patterns as its tool splits them, and the value as written (to show). */
export interface RuleGlobs {
  patterns: string[]
  written: string
}

/**
 * Splits a comma-separated glob list on the commas outside `{…}` and `[…]`,
 * so `**\/*.{ts,tsx}, docs/**` is two globs, not three (VS Code's Copilot
 * splits `applyTo` this way: `splitGlobAware`). A backslash escapes the
 * next character; unbalanced brackets leave the rest as one glob.
 */
export function splitGlobs(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '\\') i++
    else if (c === '{' || c === '[') depth++
    else if ((c === '}' || c === ']') && depth > 0) depth--
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts
}

/**
 * The globs of a front-matter value (a text or a list of texts; anything
 * else has none), split as `syntax`'s tool splits them, trimmed, empty
 * ones dropped. `written` is the text itself, or the list's items joined
 * by `, `.
 */
export function ruleGlobs(value: unknown, syntax: GlobSyntax): RuleGlobs {
  const items = (Array.isArray(value) ? value : typeof value === 'string' ? [value] : []).filter(
    (item): item is string => typeof item === 'string',
  )
  const split = syntax === 'gitignore' || (!Array.isArray(value) && syntax !== 'minimatch')
  const patterns = items
    .flatMap((item) => (split ? splitGlobs(item) : [item]))
    .map((glob) => glob.trim())
    .filter((glob) => glob.length > 0)
  const written = Array.isArray(value)
    ? items
        .map((item) => item.trim())
        .filter((item) => item.length > 0)
        .join(', ')
    : (items[0]?.trim() ?? '')
  return { patterns, written }
}

/** A test of one relative, `/`-separated path. */
export type PathTest = (path: string) => boolean

/**
 * Whether `pattern` (one of a rule's patterns, not negated) matches a path
 * relative to the rule's base, as `syntax`'s tool matches it. For lint's
 * "matches no tracked file", which asks pattern by pattern.
 */
export function patternTest(syntax: GlobSyntax, pattern: string): PathTest {
  switch (syntax) {
    case 'picomatch':
      return picomatch(pattern.replace(/^\.?\//, ''), { dot: true })
    case 'vscode': {
      const anchored = pattern.startsWith('/')
        ? pattern.slice(1)
        : pattern.startsWith('**/')
          ? pattern
          : `**/${pattern}`
      return picomatch(anchored, { dot: true, nocase: true })
    }
    case 'minimatch':
      return picomatch(pattern.replace(/^\.\//, ''), { dot: false })
    case 'gitignore':
      return gitignoreTest(pattern)
  }
}

/** Whether a path relative to the base matches the rule's patterns as a set, negations included. */
export function globsTest(syntax: GlobSyntax, patterns: readonly string[]): PathTest {
  if (syntax === 'gitignore') {
    // The last pattern that matches decides; a `!` pattern un-matches.
    const tests = patterns.map((p) => ({
      negated: p.startsWith('!'),
      test: gitignoreTest(p.replace(/^!/, '')),
    }))
    return (path) => {
      let matched = false
      for (const { negated, test } of tests) if (negated === matched && test(path)) matched = !negated
      return matched
    }
  }
  if (syntax === 'minimatch') {
    const positive = patterns.filter((p) => !p.startsWith('!')).map((p) => patternTest(syntax, p))
    const negative = patterns.filter((p) => p.startsWith('!')).map((p) => patternTest(syntax, p.slice(1)))
    return (path) =>
      (positive.length === 0 || positive.some((test) => test(path))) && !negative.some((test) => test(path))
  }
  const tests = patterns.map((p) => patternTest(syntax, p))
  return (path) => tests.some((test) => test(path))
}

/**
 * A gitignore pattern (as the `ignore` library reads it) against a path:
 * the path and each directory above it are tried, so `src` covers
 * `src/a.ts`; a pattern with no `/` but a trailing one tries names at any
 * depth, others are anchored to the base.
 */
function gitignoreTest(pattern: string): PathTest {
  const trimmed = pattern.replace(/\/\*\*$/, '').replace(/^\.\//, '')
  const dirOnly = trimmed.endsWith('/')
  const body = trimmed.replace(/\/$/, '')
  const anchored = body.includes('/')
  const match = picomatch(body.replace(/^\//, ''), { dot: true })
  return (path) => {
    const parts = path.split('/')
    for (let i = 1; i <= parts.length; i++) {
      // A pattern ending in `/` names a directory: the path itself (the last part) is a file.
      if (dirOnly && i === parts.length) break
      if (anchored ? match(parts.slice(0, i).join('/')) : match(parts[i - 1]!)) return true
    }
    return false
  }
}

/** Whether every pattern is `**` after a trailing `/**` is dropped: Claude Code then loads the rule at start. */
export function matchesEverything(patterns: readonly string[]): boolean {
  return patterns.every((p) => p.replace(/\/\*\*$/, '') === '**' || p.replace(/\/\*\*$/, '') === '')
}
