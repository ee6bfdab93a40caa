import { StoreError } from '../compile/store-errors.js'
import type { CompiledPrompt, SessionVersion } from '../compile/types.js'
import { nodeHash } from '../node/node-hash.js'
import { hashTextOnce } from '../shared/hash.js'

/** A content-addressed value: `hash` is `sha256:` + hex of `body`. */
export interface Blob {
  hash: string
  body: string
}

/** A version's own row: ids, reason and time; everything else is in blobs. */
export interface VersionRow {
  version: number
  hash: string
  tokens: number
  reason: string
  at: string
  /** The blob of the version body (manifest, sections, cuts, warnings, spans, part and tool ids). */
  body: string
  /** A recording's version: its prefix hash (a column of its own, so it is found by an index); else null. */
  prefixHash?: string | null
}

/**
 * The stored body of a version: the compiled prompt without its text and
 * tools, the text as the ordered list of its parts' blob ids (one per
 * section) with the separators between them inline, and the tool list's blob id.
 * Any field a later compile adds (provenance spans…) rides along in `prompt`.
 */
interface VersionBody {
  prompt: Omit<CompiledPrompt, 'text' | 'tools'>
  /** `gaps[i]` precedes part `i`; the last gap follows the last part. */
  gaps: string[]
  parts: string[]
  tools: string
}

/** `sha256:` + hex of `body` through `node:crypto`. */
export const blobHash = (body: string): string => hashTextOnce(body, nodeHash)

const blob = (body: string): Blob => ({ hash: blobHash(body), body })

/** Section spans in text order when they tile the text without overlapping; else one part for the whole text. */
function spansOf(compiled: CompiledPrompt): { start: number; end: number }[] {
  const spans = compiled.sections
    .map((s) => ({ start: s.start, end: s.end }))
    .sort((a, b) => a.start - b.start)
  let at = 0
  for (const span of spans) {
    if (span.start < at || span.end < span.start || span.end > compiled.text.length) {
      return [{ start: 0, end: compiled.text.length }]
    }
    at = span.end
  }
  return spans.length === 0 ? [{ start: 0, end: compiled.text.length }] : spans
}

/**
 * Splits a version into the blobs it needs (each section's text, the tool
 * list, the body; deduplicated, sorted by hash so concurrent writers take
 * row locks in one order) and its row. Equal sections across versions and
 * sessions share one blob, so a thousand sessions of one prompt store it once.
 */
export function encodeVersion(version: SessionVersion): { blobs: Blob[]; row: VersionRow } {
  const { text, tools, ...prompt } = version.compiled
  const blobs = new Map<string, Blob>()
  const add = (body: string): string => {
    const b = blob(body)
    blobs.set(b.hash, b)
    return b.hash
  }
  const gaps: string[] = []
  const parts: string[] = []
  let at = 0
  for (const span of spansOf(version.compiled)) {
    gaps.push(text.slice(at, span.start))
    parts.push(add(text.slice(span.start, span.end)))
    at = span.end
  }
  gaps.push(text.slice(at))
  const body: VersionBody = { prompt, gaps, parts, tools: add(JSON.stringify(tools)) }
  const bodyHash = add(JSON.stringify(body))
  return {
    blobs: [...blobs.values()].sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0)),
    row: {
      version: version.version,
      hash: version.hash,
      tokens: version.tokens,
      reason: version.reason,
      at: version.at,
      body: bodyHash,
      prefixHash: version.prefixHash ?? null,
    },
  }
}

/** The blob ids a version body refers to, once its own blob was read. */
export function referencedBlobs(bodyText: string): string[] {
  const body = JSON.parse(bodyText) as VersionBody
  return [...body.parts, body.tools]
}

function corrupt(id: string, detail: string): StoreError {
  return new StoreError({
    code: 'failed',
    operation: 'read',
    subject: { kind: 'session', id },
    detail: `${detail}; the database was changed outside sysprompt or is damaged, so nothing was returned: restore it from a backup or delete the session`,
  })
}

/**
 * Rebuilds a stored version from its row and blobs, checking hashes on the
 * way out: the body's and the tool list's blob ids (unless `trusted` says
 * that blob already passed this check, e.g. it came from a cache of checked
 * blobs), and always the rebuilt text against the version's hash. A mismatch
 * is an error, never a wrong prompt.
 */
export function decodeVersion(
  id: string,
  row: VersionRow,
  read: (hash: string) => string | undefined,
  trusted: (hash: string) => boolean = () => false,
): SessionVersion {
  const take = (hash: string, what: string): string => {
    const body = read(hash)
    if (body === undefined) throw corrupt(id, `version ${row.version} misses its ${what} (${hash})`)
    return body
  }
  const bodyText = take(row.body, 'body')
  if (!trusted(row.body) && blobHash(bodyText) !== row.body)
    throw corrupt(id, `the body of version ${row.version} does not match its hash`)
  const body = JSON.parse(bodyText) as VersionBody
  const toolsText = take(body.tools, 'tool list')
  if (!trusted(body.tools) && blobHash(toolsText) !== body.tools)
    throw corrupt(id, `the tools of version ${row.version} do not match their hash`)
  let text = body.gaps[0] ?? ''
  for (let i = 0; i < body.parts.length; i++)
    text += take(body.parts[i]!, 'section text') + (body.gaps[i + 1] ?? '')
  if (row.hash !== body.prompt.hash || blobHash(text) !== row.hash) {
    throw corrupt(id, `the text of version ${row.version} does not match its hash ${row.hash}`)
  }
  const compiled = { text, ...body.prompt, tools: JSON.parse(toolsText) } as CompiledPrompt
  return {
    version: row.version,
    hash: row.hash,
    tokens: row.tokens,
    reason: row.reason,
    at: row.at,
    compiled,
    ...(row.prefixHash === null || row.prefixHash === undefined ? {} : { prefixHash: row.prefixHash }),
  }
}
