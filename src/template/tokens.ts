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
