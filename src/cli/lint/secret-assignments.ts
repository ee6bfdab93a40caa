import { isWordUnit } from './types.js'

/**
 * Secrets that have no fixed prefix but sit in a recognisable place:
 * `password=…` and `AWS_SECRET_ACCESS_KEY=…` assignments, the password of a
 * URL (`postgres://user:pass@host`), basic credentials in an
 * `Authorization` header (git's `http.extraheader`), and JSON Web Tokens. Each scanner
 * finds an anchor with `indexOf` and reads forward a bounded run, resuming
 * after it, so the whole scan is linear. Found: where the secret value
 * starts and ends.
 */
export interface ValueHit {
  what: string
  /** Where the reported value starts and ends (what is masked). */
  start: number
  end: number
}

const isSpace = (c: number) => c === 0x20 || c === 0x09
const isValueChar = (c: number) =>
  c > 0x20 && c !== 0x22 && c !== 0x27 && c !== 0x60 && c !== 0x2c && c !== 0x3b
const isBase64Url = (c: number) => isWordUnit(c) || c === 0x2d
const isAwsSecretChar = (c: number) => isWordUnit(c) || c === 0x2f || c === 0x2b

/** Values that document where a secret goes rather than being one. */
function placeholder(value: string): boolean {
  const v = value.toLowerCase()
  if (/^[<$%{*[(]/.test(v) || v.includes('…') || v.includes('...')) return true
  if (/^x+$|^\*+$/.test(v)) return true
  return [
    'password',
    'pass',
    'secret',
    'changeme',
    'example',
    'your-password',
    'yourpassword',
    'redacted',
    'null',
    'none',
    'true',
    'false',
  ].includes(v)
}

/** The end of a run of `ok` characters from `from`, at most `limit` long. */
function runEnd(text: string, from: number, ok: (c: number) => boolean, limit = 512): number {
  let end = from
  const stop = Math.min(text.length, from + limit)
  while (end < stop && ok(text.charCodeAt(end))) end++
  return end
}

/** After a key: spaces, `=` or `:`, spaces, an optional quote; where the value starts, or -1. */
function valueStart(
  text: string,
  at: number,
): { start: number; colon: boolean; quoted: boolean } | undefined {
  let i = at
  while (i < text.length && isSpace(text.charCodeAt(i)) && i - at < 4) i++
  const sep = text.charCodeAt(i)
  if (sep !== 0x3d && sep !== 0x3a) return undefined
  i++
  while (i < text.length && isSpace(text.charCodeAt(i)) && i - at < 8) i++
  const q = text.charCodeAt(i)
  const quoted = q === 0x22 || q === 0x27
  return { start: quoted ? i + 1 : i, colon: sep === 0x3a, quoted }
}

const PASSWORD_KEYS = ['password', 'passwd', 'pwd']

function scanPasswords(text: string, lower: string, hits: ValueHit[]): void {
  for (const key of PASSWORD_KEYS) {
    let from = 0
    for (let at = lower.indexOf(key, from); at !== -1; at = lower.indexOf(key, from)) {
      from = at + key.length
      // The key may be a longer name ending in it (`DB_PASSWORD`), but not a word going on (`passwords`).
      if (isWordUnit(text.charCodeAt(at + key.length))) continue
      const value = valueStart(text, at + key.length)
      if (value === undefined) continue
      // A quoted value runs to its closing quote on the same line; a bare one to the first space or separator.
      const quote = text.charCodeAt(value.start - 1)
      const end = value.quoted
        ? runEnd(text, value.start, (c) => c !== quote && c !== 0x0a && c !== 0x0d)
        : runEnd(text, value.start, isValueChar)
      if (value.quoted && text.charCodeAt(end) !== quote) continue
      const found = text.slice(value.start, end)
      from = Math.max(from, end)
      // `password: see the vault` is prose: after a colon the value must be quoted or end its line.
      if (value.colon && !value.quoted && !/^\s*(\r?\n|$)/.test(text.slice(end, end + 2))) continue
      if (found.length < 4 || placeholder(found)) continue
      hits.push({ what: 'password', start: value.start, end })
    }
  }
}

const AWS_KEYS = ['aws_secret_access_key', 'secret_access_key', 'awssecretaccesskey', 'secretaccesskey']

function scanAwsSecrets(text: string, lower: string, hits: ValueHit[]): void {
  for (const key of AWS_KEYS) {
    let from = 0
    for (let at = lower.indexOf(key, from); at !== -1; at = lower.indexOf(key, from)) {
      from = at + key.length
      const value = valueStart(text, at + key.length)
      if (value === undefined) continue
      const end = runEnd(text, value.start, isAwsSecretChar, 64)
      from = Math.max(from, end)
      if (end - value.start !== 40 || isAwsSecretChar(text.charCodeAt(end))) continue
      hits.push({ what: 'AWS secret access key', start: value.start, end })
    }
  }
}

function scanUrlPasswords(text: string, hits: ValueHit[]): void {
  let from = 0
  for (let at = text.indexOf('://', from); at !== -1; at = text.indexOf('://', from)) {
    from = at + 3
    // userinfo: up to `@`, no `/`, space or quote before it.
    const userStart = at + 3
    const colon = runEnd(
      text,
      userStart,
      (c) => c !== 0x3a && c !== 0x40 && c !== 0x2f && isValueChar(c),
      256,
    )
    if (text.charCodeAt(colon) !== 0x3a || colon === userStart) continue
    const atSign = runEnd(text, colon + 1, (c) => c !== 0x40 && c !== 0x2f && isValueChar(c), 256)
    from = Math.max(from, atSign)
    if (text.charCodeAt(atSign) !== 0x40 || atSign === colon + 1) continue
    if (placeholder(text.slice(colon + 1, atSign))) continue
    hits.push({ what: 'password in a URL', start: colon + 1, end: atSign })
  }
}

const isBase64 = (c: number) => (isWordUnit(c) && c !== 0x5f) || c === 0x2b || c === 0x2f

/**
 * `AUTHORIZATION: basic <base64 of user:password>`, in any case: what
 * `git -c http.extraheader=…` and CI checkouts write into `.git/config`, and
 * what `curl -H` sends. The value must decode to `user:password` text, so
 * `Authorization: Basic auth is used` and `basic <base64>` are prose.
 */
function scanBasicAuthHeaders(text: string, lower: string, hits: ValueHit[]): void {
  const anchor = 'authorization:'
  let from = 0
  for (let at = lower.indexOf(anchor, from); at !== -1; at = lower.indexOf(anchor, from)) {
    from = at + anchor.length
    const scheme = runEnd(text, from, isSpace, 8)
    if (!lower.startsWith('basic', scheme)) continue
    const start = runEnd(text, scheme + 5, isSpace, 8)
    if (start === scheme + 5) continue
    let end = runEnd(text, start, isBase64, 1024)
    from = Math.max(from, end)
    if (text.charCodeAt(end) === 0x3d) end++
    if (text.charCodeAt(end) === 0x3d) end++
    if (isBase64(text.charCodeAt(end)) || end - start < 8 || !basicCredentials(text.slice(start, end)))
      continue
    hits.push({ what: 'basic credentials in an Authorization header', start, end })
  }
}

/** Whether base64 text decodes to `user:password` (printable, with a colon). */
function basicCredentials(base64: string): boolean {
  let decoded: string
  try {
    decoded = atob(base64)
  } catch {
    return false
  }
  return decoded.indexOf(':') > 0 && /^[\x20-\x7e]+$/.test(decoded)
}

function scanJwts(text: string, hits: ValueHit[]): void {
  let from = 0
  for (let at = text.indexOf('eyJ', from); at !== -1; at = text.indexOf('eyJ', from)) {
    from = at + 3
    if (at > 0 && isBase64Url(text.charCodeAt(at - 1))) continue
    // header.payload.signature, each base64url; the header and payload are JSON objects (`eyJ` is `{"`).
    const header = runEnd(text, at, isBase64Url, 4096)
    if (header - at < 10 || text.charCodeAt(header) !== 0x2e) {
      from = Math.max(from, header)
      continue
    }
    const payload = runEnd(text, header + 1, isBase64Url, 1 << 16)
    if (!text.startsWith('eyJ', header + 1) || payload - header < 10 || text.charCodeAt(payload) !== 0x2e) {
      from = Math.max(from, payload)
      continue
    }
    const signature = runEnd(text, payload + 1, isBase64Url, 4096)
    from = Math.max(from, signature)
    if (signature - payload < 16) continue
    hits.push({ what: 'JSON Web Token', start: at, end: signature })
  }
}

/** Every assignment, URL password, basic-auth header and JWT in `text`. */
export function scanSecretValues(text: string): ValueHit[] {
  const hits: ValueHit[] = []
  // ASCII lower case only: it keeps every offset where it was.
  const lower = text.replace(/[A-Z]+/g, (run) => run.toLowerCase())
  scanPasswords(text, lower, hits)
  scanAwsSecrets(text, lower, hits)
  scanUrlPasswords(text, hits)
  scanBasicAuthHeaders(text, lower, hits)
  scanJwts(text, hits)
  return hits
}
