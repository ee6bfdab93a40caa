import { TemplateError } from './errors.js'
import { type Layout, OP_MASK, OP_NEGATED, Op, type Program, SLOT_SHIFT } from './program.js'

/** The values a template renders with: a string is present, `null`/`undefined`/missing is absent. */
export type TemplateValues =
  | ReadonlyMap<string, string | null | undefined>
  | Readonly<Record<string, string | null | undefined>>

/** What `render` needs to know about the template it runs. */
export interface RenderTarget {
  readonly source: string
  readonly name: string | undefined
  readonly strict: boolean
  readonly variables: readonly string[]
  readonly variableOffsets: readonly number[]
  readonly program: Program
}

const hasOwn = Object.hasOwn

// The program's encoding, copied into this module's own constants: the loop
// below reads them on every instruction, and where this module is compiled
// to CommonJS (a test runner's or a bundler's transform), every use of an
// imported name is a property read of the other module's exports object
// (measured so: the strict render of the template benchmark took ~1.7× as
// long with the imported names in its loop).
const INSERT: number = Op.Insert
const IF: number = Op.If
const MASK = OP_MASK
const NEGATED = OP_NEGATED
const SHIFT = SLOT_SHIFT

function isMapLike(values: TemplateValues): values is ReadonlyMap<string, string | null | undefined> {
  return (
    typeof (values as ReadonlyMap<string, unknown>).get === 'function' && typeof values.has === 'function'
  )
}

/**
 * Runs a compiled program. One loop, no recursion: the output's parts are
 * laid out in advance, insertions fill theirs, an `If` whose test fails
 * blanks the parts of its branch and jumps past it, a `Jump` does the same
 * for an `else` branch, and one join makes the output. Both modes first
 * check the type of every referenced value; strict mode also checks that
 * every referenced key is known (so a typo in a branch not taken still
 * fails), then fails on an insertion whose value is absent.
 *
 * A template rendered often takes a shorter way: after {@link HOT_RENDERS}
 * renders it keeps a {@link Layout} of the path its values took, and a
 * render whose values are present and absent in the same pattern (the path
 * depends on nothing else) fills that layout's few parts instead.
 */
export function render(target: RenderTarget, values: TemplateValues): string {
  const resolved = resolve(target, values)
  const { program } = target
  const layout = program.layout
  if (layout !== undefined && samePattern(layout.present, resolved)) {
    const parts = layout.parts.slice()
    const { places, slots } = layout
    for (let j = 0; j < places.length; j++) parts[places[j]!] = resolved[slots[j]!]!
    return parts.join('')
  }
  const hot = program.renders + 1 >= HOT_RENDERS
  const taken: number[] | undefined = hot ? [] : undefined
  const parts = run(target, resolved, taken)
  // Counted once the render has succeeded: a layout is made from a path that renders.
  program.renders = hot ? 0 : program.renders + 1
  if (taken !== undefined) program.layout = layoutOf(resolved, parts, taken)
  return parts.join('')
}

/** Where one inserted value landed in a rendered text (string indices, `end` exclusive). */
export interface Insertion {
  key: string
  start: number
  end: number
}

/**
 * {@link render}, also reporting where each non-empty inserted value landed,
 * in output order. Provenance comes from the renderer itself, never from
 * searching the output (a value may occur in the text by chance too).
 */
export function renderTracked(
  target: RenderTarget,
  values: TemplateValues,
): { text: string; insertions: Insertion[] } {
  const parts = run(target, resolve(target, values))
  const { ops, at } = target.program
  const insertions: Insertion[] = []
  // Insertions' parts come in output order; `offset` is where part `p` starts.
  let offset = 0
  let p = 0
  for (let i = 0; i < ops.length; i++) {
    const word = ops[i]!
    if ((word & MASK) !== INSERT) continue
    const place = at[i]!
    for (; p < place; p++) offset += parts[p]!.length
    const length = parts[place]!.length
    if (length > 0) {
      insertions.push({ key: target.variables[word >> SHIFT]!, start: offset, end: offset + length })
    }
  }
  return { text: parts.join(''), insertions }
}

/** The value of every referenced key, by slot (see {@link resolveRecord}). */
function resolve(target: RenderTarget, values: TemplateValues): (string | undefined)[] {
  if (values === null || typeof values !== 'object') {
    throw new TypeError('template values must be a Map or a plain object')
  }
  return isMapLike(values) ? resolveMap(target, values) : resolveRecord(target, values)
}

/**
 * Runs the program into its output parts (a copy of the program's `texts`,
 * filled). With `taken`, records each part it fills, then that part's key
 * slot, in output order.
 */
function run(target: RenderTarget, resolved: readonly (string | undefined)[], taken?: number[]): string[] {
  const { program, strict } = target
  const { ops, args, at, ends } = program
  const parts = program.texts.slice()
  const n = ops.length
  let i = 0
  while (i < n) {
    const word = ops[i]!
    const op = word & MASK
    if (op === INSERT) {
      const value = resolved[word >> SHIFT]
      if (value !== undefined) {
        parts[at[i]!] = value
        taken?.push(at[i]!, word >> SHIFT)
      } else if (strict) throw valueless(target, word >> SHIFT, args[i]!)
      i++
    } else if (op === IF && (resolved[word >> SHIFT] !== undefined) !== ((word & NEGATED) !== 0)) {
      i++
    } else {
      // A failed test, or the `else` branch of a test that passed: blank the branch's parts, skip its instructions.
      for (let p = at[i]!, end = ends[i]!; p < end; p++) parts[p] = ''
      i = args[i]!
    }
  }
  return parts
}

/**
 * Renders without a matching layout after which a template gets one for the
 * values of the render that reached the count. Making a layout costs about
 * one render (a join of its literal text, and a copy of each joined run to
 * make it one-byte); it keeps the path's literal text alive, about the size
 * of the output. On the template benchmark's 25 KB template the layout has
 * 77 parts where the program has 114, and the strict render from it took
 * 1.05× the floor of joining the output's pieces where the program took
 * 1.25×: it pays back within a few renders. The count bounds what a
 * template rendered only a few times pays in memory, and how often one
 * rendered with ever-changing patterns of present keys makes a new layout
 * (once per 128 renders: under 1 % of the time).
 */
export const HOT_RENDERS = 128

function samePattern(present: readonly boolean[], resolved: readonly (string | undefined)[]): boolean {
  for (let i = 0; i < present.length; i++) if ((resolved[i] !== undefined) !== present[i]) return false
  return true
}

/**
 * The {@link Layout} of the path a render took: its filled `parts` with the
 * literal text between insertions joined, each joined run made one-byte
 * where its characters allow ({@link oneByte}).
 */
function layoutOf(
  resolved: readonly (string | undefined)[],
  filled: readonly string[],
  taken: readonly number[],
): Layout {
  const parts: string[] = []
  const places: number[] = []
  const slots: number[] = []
  let from = 0
  const literal = (to: number): void => {
    const text = filled.slice(from, to).join('')
    if (text.length > 0) parts.push(oneByte(text))
  }
  // `taken` holds the parts filled in output order, each with its key slot.
  for (let k = 0; k < taken.length; k += 2) {
    const place = taken[k]!
    literal(place)
    places.push(parts.length)
    slots.push(taken[k + 1]!)
    parts.push('')
    from = place + 1
  }
  literal(filled.length)
  return { present: resolved.map((value) => value !== undefined), parts, places, slots }
}

/** A character V8 cannot hold in a one-byte string (one class, no backtracking: linear). */
const WIDE = /[^\0-\xff]/

/**
 * `text`, copied into a one-byte string when none of its characters is above
 * U+00FF. V8 holds a string with any character above U+00FF two bytes a
 * character, and a slice of it (every literal part is one) or a join of
 * such slices stays two-byte whatever it holds: the join of a render then
 * reads twice the bytes for most of the output (measured on the template
 * benchmark, whose source holds one such character: joining its rendered
 * parts took ~1.35× as long with two-byte parts as with one-byte copies). A
 * JSON round trip is the copy: V8's JSON parser makes a string one-byte when
 * its content allows, and the content is the same whatever the engine does
 * with it.
 */
export function oneByte(text: string): string {
  return WIDE.test(text) ? text : (JSON.parse(JSON.stringify(text)) as string)
}

/**
 * The value of every referenced key, by slot, from a plain object (own
 * properties only): the string, or `undefined` when absent. In strict mode
 * an unknown key throws; any value but a string, `null` or `undefined` is a
 * programming error.
 */
function resolveRecord(
  target: RenderTarget,
  values: Readonly<Record<string, unknown>>,
): (string | undefined)[] {
  const { variables } = target
  const n = variables.length
  const resolved = new Array<string | undefined>(n)
  for (let i = 0; i < n; i++) {
    const key = variables[i]!
    if (hasOwn(values, key)) {
      // The common case tested first, inline: one read of the property.
      const value = values[key]
      resolved[i] = typeof value === 'string' ? value : checked(key, value)
    } else if (target.strict) throw unknown(target, Object.keys(values), i)
    else resolved[i] = undefined
  }
  return resolved
}

/** {@link resolveRecord} for a `Map`. */
function resolveMap(target: RenderTarget, values: ReadonlyMap<string, unknown>): (string | undefined)[] {
  const { variables, strict } = target
  const resolved = new Array<string | undefined>(variables.length)
  for (let i = 0; i < variables.length; i++) {
    const key = variables[i]!
    if (strict && !values.has(key)) throw unknown(target, [...values.keys()], i)
    resolved[i] = checked(key, values.get(key))
  }
  return resolved
}

function checked(key: string, value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (value === undefined || value === null) return undefined
  throw new TypeError(
    `template value for "${key}" is ${typeof value}; values must be strings, null or undefined`,
  )
}

function unknown(target: RenderTarget, keys: string[], slot: number): TemplateError {
  const key = target.variables[slot]!
  const known = keys.sort()
  return TemplateError.at(target.source, target.variableOffsets[slot]!, {
    code: 'unknown-variable',
    template: target.name,
    known,
    detail: `unknown variable "${key}"; known: ${known.length > 0 ? known.join(', ') : '(none)'}. Provide a value for it or fix the name`,
  })
}

function valueless(target: RenderTarget, slot: number, offset: number): TemplateError {
  return TemplateError.at(target.source, offset, {
    code: 'valueless-variable',
    template: target.name,
    detail: `variable "${target.variables[slot]!}" has no value here; give it a string, or guard the insertion with a conditional`,
  })
}
