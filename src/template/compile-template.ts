import { LineCounter } from '../shared/line-counter.js'
import { LruCache } from '../shared/lru-cache.js'
import type { Dialect } from '../shared/vocabulary.js'
import { type Diagnostic, TemplateError } from './errors.js'
import { type Parsed, parse } from './parse.js'
import type { Program } from './program.js'
import { type Insertion, type RenderTarget, render, renderTracked, type TemplateValues } from './render.js'
import { BRACKET, scanBracket } from './tokenize-bracket.js'
import { MUSTACHE, scanMustache } from './tokenize-mustache.js'
import { tagBuffer } from './tokens.js'

export type { Dialect }

export interface TemplateOptions {
  /** `mustache` (`{{key}}`, the default) or `bracket` (`[namespace:key]`, seed 000's dialect). */
  dialect?: Dialect
  /** Fail on what lenient mode would keep as text. Defaults to `true` for mustache, `false` for bracket. */
  strict?: boolean
  /** Names the template in errors (a file or section name). */
  name?: string
}

/** A compiled template: parse once, render many times. */
export interface Template {
  readonly source: string
  readonly dialect: Dialect
  readonly strict: boolean
  /** Keys referenced by insertions and conditions, in first-appearance order, deduplicated. */
  readonly variables: readonly string[]
  /** Lenient mode: what strict mode would have rejected, in source order. Empty in strict mode. */
  readonly diagnostics: readonly Diagnostic[]
  render(values: TemplateValues): string
}

/** Lenient mode lists at most this many diagnostics, then one that counts the rest. */
const MAX_DIAGNOSTICS = 100
/**
 * Sources longer than this are compiled but not cached. V8 hashes longer
 * strings by their length alone, so a table keyed by them degrades into
 * comparing whole sources; and holding many large sources alive costs more
 * in garbage collection than parsing them again (~50 µs for 25 KB) saves.
 * Registry sections, the templates compiled again and again, are far shorter.
 */
const MAX_CACHED_SOURCE = 16383
const cache = new LruCache<string, CompiledTemplate[]>(256)
const NO_DIAGNOSTICS: readonly Diagnostic[] = Object.freeze([])

class CompiledTemplate implements Template, RenderTarget {
  readonly variables: readonly string[]
  readonly variableOffsets: readonly number[]
  readonly program: Program

  constructor(
    readonly source: string,
    readonly dialect: Dialect,
    readonly strict: boolean,
    readonly name: string | undefined,
    parsed: Parsed,
    readonly diagnostics: readonly Diagnostic[],
  ) {
    // Cached templates are shared by every caller: nothing of them may change.
    this.variables = Object.freeze(parsed.variables)
    this.variableOffsets = parsed.variableOffsets
    this.program = parsed.program
    Object.freeze(diagnostics)
    Object.freeze(this)
  }

  render(values: TemplateValues): string {
    return render(this, values)
  }
}

/**
 * One template alive for as long as this module, never used: its being alive
 * is the point. V8 holds the hidden classes an object reaches by adding its
 * fields (or by being frozen) only weakly: a full collection that finds no
 * compiled template alive drops them, and with them the optimised code of
 * every function that touched a template, so compile and render run
 * unoptimised again until V8 re-optimises them. A process that compiles a
 * template, renders it and lets it go would pay that after every full
 * collection.
 */
const _keepTemplateClassesAlive = new CompiledTemplate(
  '',
  'mustache',
  true,
  undefined,
  {
    program: {
      texts: [],
      renders: 0,
      layout: { present: [], parts: [], places: [], slots: [] },
      ops: [],
      args: [],
      at: [],
      ends: [],
    },
    variables: [],
    variableOffsets: [],
    problems: [],
    problemCount: 0,
  },
  [],
)

/**
 * Compiles a template in either dialect (SPEC §2).
 *
 * Strict mode throws a {@link TemplateError} for the first parse-time
 * problem (`malformed-reference`, `unclosed-block`, `stray-tag`) and its
 * `render` throws for unknown or valueless keys; lenient mode keeps such
 * tags as text, lists them in `diagnostics`, and renders absent keys as
 * `''`. Compiled templates are cached by source and options.
 */
export function compileTemplate(source: string, options: TemplateOptions = {}): Template {
  if (typeof source !== 'string') throw new TypeError('compileTemplate: source must be a string')
  const dialect = options.dialect ?? 'mustache'
  if (dialect !== 'mustache' && dialect !== 'bracket') {
    throw new TypeError(`compileTemplate: unknown dialect "${String(dialect)}"; use "mustache" or "bracket"`)
  }
  const strict = options.strict ?? dialect === 'mustache'
  const name = options.name
  const cacheable = source.length <= MAX_CACHED_SOURCE
  const cached = cacheable ? cache.get(source) : undefined
  const hit = cached?.find((t) => t.dialect === dialect && t.strict === strict && t.name === name)
  if (hit !== undefined) return hit

  const syntax = dialect === 'mustache' ? MUSTACHE : BRACKET
  if (dialect === 'mustache') scanMustache(source, tagBuffer)
  else scanBracket(source, tagBuffer)
  const parsed = parse(source, tagBuffer, syntax, strict ? 1 : MAX_DIAGNOSTICS + 1)
  tagBuffer.reset()
  let diagnostics: readonly Diagnostic[] = NO_DIAGNOSTICS
  if (parsed.problemCount > 0) {
    if (strict) {
      const first = parsed.problems[0]!
      throw TemplateError.at(source, first.offset, {
        code: first.code,
        template: name,
        detail: first.message,
      })
    }
    diagnostics = toDiagnostics(source, parsed)
  }
  const template = new CompiledTemplate(source, dialect, strict, name, parsed, diagnostics)
  if (cacheable) {
    if (cached === undefined) cache.set(source, [template])
    else if (cached.length < 8) cached.push(template)
  }
  return template
}

function toDiagnostics(source: string, parsed: Parsed): Diagnostic[] {
  const lines = new LineCounter(source)
  const { problems } = parsed
  const shown = problems.slice(0, MAX_DIAGNOSTICS).map((p) => ({
    code: p.code,
    message: p.message,
    ...lines.at(p.offset),
  }))
  if (problems.length > MAX_DIAGNOSTICS) {
    const next = problems[MAX_DIAGNOSTICS]!
    shown.push({
      code: next.code,
      message: `${parsed.problemCount - MAX_DIAGNOSTICS} more problems not listed; fix the ones above first`,
      ...lines.at(next.offset),
    })
  }
  return shown
}

/**
 * Renders `template` (one `compileTemplate` returned) and reports where each
 * non-empty inserted value landed in the output: what lets a compiled prompt
 * say which included file a span of its text came from.
 */
export function renderWithInsertions(
  template: Template,
  values: TemplateValues,
): { text: string; insertions: Insertion[] } {
  if (!(template instanceof CompiledTemplate)) {
    throw new TypeError('renderWithInsertions: pass a template that compileTemplate returned')
  }
  return renderTracked(template, values)
}

/** Empties the compiled-template cache (for tests and long-lived processes that load many one-off templates). */
export function clearTemplateCache(): void {
  cache.clear()
}
