import { scanSecretValues } from './secret-assignments.js'
import { isWordUnit, type TextHit } from './types.js'

/** A key format: literal prefixes, then a run of `body` characters of a given length. */
interface KeyPattern {
  what: string
  prefixes: readonly string[]
  body: (c: number) => boolean
  min: number
  /** The run must be exactly `min` long (AWS access key ids). */
  exact?: boolean
  /** Real keys mix letters and digits; documentation placeholders (`sk-your-key-here`) do not. */
  mixed?: boolean
  advice: string
}

const isAlnum = (c: number) => isWordUnit(c) && c !== 0x5f
const isUpperOrDigit = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a)
const isKeyChar = (c: number) => isWordUnit(c) || c === 0x2d
const isDigit = (c: number) => c >= 0x30 && c <= 0x39
const isLetter = (c: number) => isWordUnit(c) && !isDigit(c) && c !== 0x5f

const ROTATE = 'remove it, rotate it, and pass it at run time instead'

const PATTERNS: readonly KeyPattern[] = [
  { what: 'API key', prefixes: ['sk-'], body: isKeyChar, min: 20, mixed: true, advice: ROTATE },
  {
    what: 'GitHub token',
    prefixes: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
    body: isAlnum,
    min: 30,
    mixed: true,
    advice: ROTATE,
  },
  { what: 'GitHub token', prefixes: ['github_pat_'], body: isWordUnit, min: 30, mixed: true, advice: ROTATE },
  {
    what: 'AWS access key id',
    prefixes: ['AKIA', 'ASIA'],
    body: isUpperOrDigit,
    min: 16,
    exact: true,
    advice: ROTATE,
  },
  // Google (none of these is in secretlint's recommended preset, 10.2): API keys are `AIza` and
  // exactly 35 more characters; OAuth access tokens `ya29.…`; refresh tokens `1//…`.
  { what: 'Google API key', prefixes: ['AIza'], body: isKeyChar, min: 35, exact: true, advice: ROTATE },
  {
    what: 'Google OAuth access token',
    prefixes: ['ya29.'],
    body: isKeyChar,
    min: 20,
    mixed: true,
    advice: ROTATE,
  },
  {
    what: 'Google OAuth refresh token',
    prefixes: ['1//'],
    body: isKeyChar,
    min: 30,
    mixed: true,
    advice: ROTATE,
  },
  {
    what: 'Slack token',
    prefixes: ['xoxb-', 'xoxp-'],
    body: isKeyChar,
    min: 10,
    mixed: true,
    advice: ROTATE,
  },
]

function mixed(text: string, start: number, end: number): boolean {
  let digit = false
  let letter = false
  for (let i = start; i < end && !(digit && letter); i++) {
    const c = text.charCodeAt(i)
    digit ||= isDigit(c)
    letter ||= isLetter(c)
  }
  return digit && letter
}

/** What a finding shows of a key: its public prefix and its length, never the secret part. */
export function masked(prefix: string, length: number): string {
  return `${prefix}… (${length} characters)`
}

/** A found secret: the hit, and the secret itself so callers can tell the same key found twice apart (never printed). */
export interface SecretHit extends TextHit {
  secret: string
}

function scanPattern(text: string, pattern: KeyPattern, hits: SecretHit[]): void {
  for (const prefix of pattern.prefixes) {
    let from = 0
    for (let at = text.indexOf(prefix, from); at !== -1; at = text.indexOf(prefix, from)) {
      const bodyStart = at + prefix.length
      let end = bodyStart
      while (end < text.length && pattern.body(text.charCodeAt(end))) end++
      // Resume after the run whatever it was: every character is looked at a bounded number of times.
      from = Math.max(end, at + 1)
      if (at > 0 && isWordUnit(text.charCodeAt(at - 1))) continue
      const length = end - bodyStart
      if (
        pattern.exact === true
          ? length !== pattern.min || isWordUnit(text.charCodeAt(end))
          : length < pattern.min
      )
        continue
      if (pattern.mixed === true && !mixed(text, bodyStart, end)) continue
      hits.push({
        offset: at,
        severity: 'error',
        code: 'secret',
        message: `likely secret: ${pattern.what} ${masked(prefix, end - at)}; ${pattern.advice}`,
        secret: text.slice(at, end),
      })
    }
  }
}

const BEGIN = '-----BEGIN '
const KEY_END = 'PRIVATE KEY-----'

function scanPrivateKeys(text: string, hits: SecretHit[]): void {
  let from = 0
  for (let at = text.indexOf(BEGIN, from); at !== -1; at = text.indexOf(BEGIN, from)) {
    // The label is a few upper-case words: `RSA PRIVATE KEY`, `OPENSSH PRIVATE KEY`, `PRIVATE KEY`.
    let end = at + BEGIN.length
    const limit = Math.min(text.length, end + 40)
    while (end < limit && (isUpperOrDigit(text.charCodeAt(end)) || text.charCodeAt(end) === 0x20)) end++
    from = end
    if (!text.startsWith('-----', end) || !text.startsWith(KEY_END, end - (KEY_END.length - 5))) continue
    const label = text.slice(at + BEGIN.length, end)
    hits.push({
      offset: at,
      severity: 'error',
      code: 'secret',
      message: `likely secret: a ${label.trim()} block (-----BEGIN ${label}-----); remove it and replace the key`,
      secret: text.slice(at, end + 5),
    })
  }
}

/**
 * Likely secrets in included text (SPEC §9), by our own patterns: API keys
 * (`sk-…`), GitHub tokens (`ghp_…`, `github_pat_…`), AWS access key ids
 * (`AKIA…`), Google API keys (`AIza…`), Google OAuth access and refresh
 * tokens (`ya29.…`, `1//…`), Slack tokens (`xoxb-…`, `xoxp-…`), private key
 * blocks, and (`secret-assignments.ts`) `password=…` and AWS secret access
 * key assignments, passwords in URLs, basic credentials in an
 * `Authorization` header (git's `http.extraheader`) and JSON Web Tokens. Each pattern is a
 * literal prefix found with `indexOf`, then a run of key characters; the
 * scan resumes after each run, so it is linear in the text. A key must
 * start at a word boundary and, where real keys do, mix letters and digits
 * (so `sk-your-api-key-goes-here` is not reported). Messages show only the
 * prefix and the length.
 */
export function scanSecrets(text: string): SecretHit[] {
  const hits: SecretHit[] = []
  for (const pattern of PATTERNS) scanPattern(text, pattern, hits)
  scanPrivateKeys(text, hits)
  for (const value of scanSecretValues(text)) {
    hits.push({
      offset: value.start,
      severity: 'error',
      code: 'secret',
      message: `likely secret: ${value.what} ${masked('', value.end - value.start)}; ${ROTATE}`,
      secret: text.slice(value.start, value.end),
    })
  }
  return dedupe(hits)
}

/** Hits sorted by offset, a hit inside an earlier one's span dropped (two rules finding one key). */
function dedupe(hits: SecretHit[]): SecretHit[] {
  hits.sort((a, b) => a.offset - b.offset || b.secret.length - a.secret.length)
  const out: SecretHit[] = []
  let reach = -1
  for (const hit of hits) {
    if (hit.offset < reach) continue
    out.push(hit)
    reach = hit.offset + hit.secret.length
  }
  return out
}

/** Secretlint's recommended preset, loaded on the first scan only (it is not needed to build a prompt). */
let preset: Promise<(text: string) => Promise<SecretHit[]>> | undefined

function loadPreset(): Promise<(text: string) => Promise<SecretHit[]>> {
  preset ??= (async () => {
    const [{ lintSource }, { creator }] = await Promise.all([
      import('@secretlint/core'),
      import('@secretlint/secretlint-rule-preset-recommend'),
    ])
    const config = { rules: [{ id: creator.meta.id, rule: creator }] }
    return async (text: string) => {
      const result = await lintSource({
        source: { filePath: 'included.txt', content: text, contentType: 'text' },
        options: { config, maskSecrets: true, noPhysicFilePath: true },
      })
      return result.messages.map((m) => {
        const [start, end] = m.range
        const rule = m.ruleId.replace(/^@secretlint\/secretlint-rule-/, '')
        const what = m.messageId === undefined ? rule : `${rule}: ${m.messageId}`
        return {
          offset: start,
          severity: 'error' as const,
          code: 'secret',
          // Secretlint's own message quotes the value (masked); ours names the kind and the length only.
          message: `likely secret (secretlint ${what}) ${masked('', end - start)}; ${ROTATE}`,
          secret: text.slice(start, end),
        }
      })
    }
  })()
  return preset
}

/**
 * {@link scanSecrets} together with secretlint's recommended rule preset (a
 * maintained rule set: cloud keys, tokens of many services, basic-auth
 * URLs…), each secret reported once. Secretlint is imported on the first
 * call only, so commands that never scan never load it.
 */
export async function scanSecretsWithPreset(text: string): Promise<SecretHit[]> {
  const own = scanSecrets(text)
  const lint = await loadPreset()
  return dedupe([...own, ...(await lint(text))])
}
