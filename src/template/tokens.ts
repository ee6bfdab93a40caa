/** What the tokenizers of both dialects produce: the tags, in source order, plus text they refused. */

export enum TagKind {
  /** `{{key}}` / `[key]` */
  Insert = 0,
  /** `{{#if key}}` / `[if key]` (possibly negated) */
  If = 1,
  /** `{{else}}` / `[else]` */
  Else = 2,
  /** `{{/if}}` / `[endif]` */
  End = 3,
}

export interface Tag {
  kind: TagKind
  /** Offset of the opening `{{` or `[`. */
  start: number
  /** Offset just past the closing `}}` or `]`. */
  end: number
  /** The key of an insert or `if`; `''` for `else` and end tags. */
  key: string
  negated: boolean
}

/** A span the tokenizer kept as text although strict mode rejects it (mustache only). */
export interface Malformed {
  start: number
  end: number
  /** `true` for a `{{` that opens no complete group while a `}}` follows. */
  unpaired: boolean
}

export interface TokenizeResult {
  tags: Tag[]
  malformed: Malformed[]
}

/** How a dialect writes its tags, for messages. */
export interface DialectSyntax {
  open: string
  close: string
  ifTag(key: string): string
  elseTag: string
  endTag: string
}

/** Fields of one tag in {@link TagBuffer.tags}. */
export const TAG_KIND = 0
export const TAG_START = 1
export const TAG_END = 2
export const TAG_KEY_START = 3
export const TAG_KEY_END = 4
export const TAG_STRIDE = 5
/** Or-ed into a tag's kind: `if !key`. */
export const NEGATED = 4
/** Or-ed into a tag's kind by pairing: the tag takes no part in a block and stays text. */
export const LITERAL = 8
/** Kept between compiles: a buffer that grew past this many ints is dropped after use. */
const MAX_KEPT = 1 << 14

/**
 * The tags of one source as offsets into it, filled by a tokenizer and read
 * by `parse`. One buffer is reused by every compile (they are synchronous
 * and call no user code), so tokenizing allocates nothing per tag: no tag
 * objects and no key strings until a key is known to be new.
 */
export class TagBuffer {
  /** {@link TAG_STRIDE} ints per tag: kind (with flags), start, end, key start, key end. */
  tags = new Int32Array(TAG_STRIDE * 64)
  count = 0
  /** Two ints per malformed span: start, then end; a span of just `{{` is an unpaired one. */
  malformed = new Int32Array(32)
  malformedCount = 0

  /** Empties the buffer for the next source, letting go of what an unusually large one grew. */
  reset(): void {
    this.count = 0
    this.malformedCount = 0
    if (this.tags.length > MAX_KEPT) this.tags = new Int32Array(TAG_STRIDE * 64)
    if (this.malformed.length > MAX_KEPT) this.malformed = new Int32Array(32)
  }

  push(kind: number, start: number, end: number, keyStart: number, keyEnd: number): void {
    let at = this.count * TAG_STRIDE
    if (at === this.tags.length) {
      const grown = new Int32Array(at * 2)
      grown.set(this.tags)
      this.tags = grown
    }
    const tags = this.tags
    tags[at++] = kind
    tags[at++] = start
    tags[at++] = end
    tags[at++] = keyStart
    tags[at] = keyEnd
    this.count++
  }

  pushMalformed(start: number, end: number): void {
    const at = this.malformedCount * 2
    if (at === this.malformed.length) {
      const grown = new Int32Array(at * 2)
      grown.set(this.malformed)
      this.malformed = grown
    }
    this.malformed[at] = start
    this.malformed[at + 1] = end
    this.malformedCount++
  }
}

/** The one buffer compiles share. */
export const tagBuffer = new TagBuffer()

/** The buffer's contents as objects, for callers that want them (the linter). */
export function toTokenizeResult(source: string, buffer: TagBuffer): TokenizeResult {
  const tags: Tag[] = []
  const { tags: data, malformed: spans } = buffer
  for (let at = 0; at < buffer.count * TAG_STRIDE; at += TAG_STRIDE) {
    const kind = data[at + TAG_KIND]!
    tags.push({
      kind: (kind & 3) as TagKind,
      start: data[at + TAG_START]!,
      end: data[at + TAG_END]!,
      key: source.slice(data[at + TAG_KEY_START]!, data[at + TAG_KEY_END]!),
      negated: (kind & NEGATED) !== 0,
    })
  }
  const malformed: Malformed[] = []
  for (let at = 0; at < buffer.malformedCount * 2; at += 2) {
    const start = spans[at]!
    const end = spans[at + 1]!
    malformed.push({ start, end, unpaired: end - start === 2 })
  }
  return { tags, malformed }
}
