/* What every provider's parser shares: reading untrusted values, building parts, naming the conversation. */
import type { RecordedMark, RecordedPart } from '../../compile/call-record.js'
import { hashText, keyedHash } from '../../shared/hash.js'
import type { ConversationIdentity, ParsedPart, RequestHeaders } from './types.js'

/** A plain JSON object (not an array, not null). */
export type JsonObject = Record<string, unknown>

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The string at `key`, if it is one. */
export function stringAt(value: JsonObject, key: string): string | undefined {
  const v = value[key]
  return typeof v === 'string' ? v : undefined
}

/** The finite number at `key`, else 0 (usage fields a provider leaves out count nothing). */
export function numberAt(value: unknown, key: string): number {
  const v = isObject(value) ? value[key] : undefined
  return typeof v === 'number' && Number.isFinite(v) ? v : 0
}

/** A header's value by name in any case; a repeated header gives its first value. */
export function header(headers: RequestHeaders, name: string): string | undefined {
  const lower = name.toLowerCase()
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== lower || value === undefined) continue
    return typeof value === 'string' ? value : value[0]
  }
  return undefined
}

/** `sha256:` of an element's JSON as `JSON.stringify` writes it (see `ParsedPart.bytes`). */
export function elementHash(element: unknown): string {
  return hashText(JSON.stringify(element) ?? 'null')
}

/** A part of the prefix; `text` defaults to the element's JSON. */
export function makePart(
  section: string,
  kind: ParsedPart['kind'],
  element: unknown,
  text?: string,
): ParsedPart {
  const bytes = JSON.stringify(element) ?? 'null'
  return { section, kind, text: text ?? bytes, bytes, hash: hashText(bytes) }
}

/** Tool sections, named `tool:<name>`; a name seen again gets `#2`, `#3`… so sections stay distinct. */
export function toolSections(): (name: string) => string {
  const seen = new Map<string, number>()
  return (name) => {
    const n = (seen.get(name) ?? 0) + 1
    seen.set(name, n)
    return n === 1 ? `tool:${name}` : `tool:${name}#${n}`
  }
}

/** The mark an Anthropic-style `cache_control` asks for, closing `at`; none when there is no `cache_control`. */
export function markOf(cacheControl: unknown, at: string): RecordedMark | undefined {
  if (!isObject(cacheControl)) return undefined
  return { at, ttl: cacheControl.ttl === '1h' ? '1h' : '5m' }
}

/** The text of a content value: a string, or the `text` of each block of a list, joined by a line break. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  const texts: string[] = []
  for (const block of content) if (isObject(block) && typeof block.text === 'string') texts.push(block.text)
  return texts.join('\n')
}

/**
 * The conversation key: the harness's session id (with the agent id of a
 * sub-agent after a `/`), else the hash of `metadata.user_id`, else the
 * hash of the first user message after what the harness injects.
 */
export function conversationOf(identity: ConversationIdentity): string {
  if (identity.sessionId !== undefined)
    return identity.agentId === undefined ? identity.sessionId : `${identity.sessionId}/${identity.agentId}`
  return identity.userIdHash ?? identity.firstUserMessageHash ?? elementHash(null)
}

/**
 * Where each harness states its working directory in what it sends:
 * Claude Code and opencode `Working directory: …` in the `<env>` block of
 * the system prompt; Codex `<cwd>…</cwd>` in its `<environment_context>`
 * message; pi 1.x a `<cwd>` section (the path on its own line) at the end
 * of its system prompt; Gemini CLI `I'm currently working in the
 * directory: …` in the session context of its first user message.
 */
const WORKING_DIRECTORY = [
  /<env>[\s\S]*?Working directory: ([^\n]+)/,
  /<cwd>([^<]*)<\/cwd>/,
  /I'm currently working in the directory: ([^\n]+)/,
]

/** The first working directory stated in `texts`, in the order given. */
export function findWorkingDirectory(texts: readonly string[]): string | undefined {
  for (const text of texts) {
    for (const pattern of WORKING_DIRECTORY) {
      const found = pattern.exec(text)?.[1]?.trim()
      if (found !== undefined && found !== '') return found
    }
  }
  return undefined
}

/** `sha256:` of the prefix: the parts' hashes in order, one a line (`CallRecord.prefixHash`). */
export function prefixHash(parts: readonly Pick<ParsedPart, 'hash'>[]): string {
  return hashText(parts.map((p) => p.hash).join('\n'))
}

/** The part as a `CallRecord` holds it: its as-sent hash and a hash of its text keyed with the per-user secret. */
export function toRecordedPart(part: ParsedPart, key: Uint8Array | string): RecordedPart {
  return { section: part.section, kind: part.kind, hash: part.hash, keyedHash: keyedHash(key, part.text) }
}

/** `{ [key]: value }` when the value is defined, else nothing (optional fields stay absent, not `undefined`). */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }
}

/** The object without its `undefined` fields. */
export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}
