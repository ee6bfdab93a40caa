import type { Stability } from '../../registry/index.js'
import { LineCounter } from '../../shared/line-counter.js'
import { compileTemplate, type Dialect, keyNamespace } from '../../template/index.js'
import { tokenizeBracket } from '../../template/tokenize-bracket.js'
import { tokenizeMustache } from '../../template/tokenize-mustache.js'
import type { Finding } from './types.js'

/** A template in a file: its body and the file line the body starts on. */
export interface TemplateInput {
  file: string
  body: string
  bodyLine: number
  dialect: Dialect
}

/** What the prompt knows about a key: whether anything answers it, and how long its value holds. */
export type KeyLookup = (key: string) => { known: true; stability: Stability } | { known: false; why: string }

/**
 * Lints one template (SPEC §9), every position a line and column of its
 * file: the parse problems lenient mode keeps as text (errors in the
 * mustache dialect, which is strict and would throw; warnings in the bracket
 * dialect, which renders them as text), keys nothing answers (errors: strict
 * mode throws, lenient mode silently renders them as nothing), and keys
 * whose values change between turns (warnings: they belong in the
 * environment message, not the cached system prompt), and `file:` keys
 * absent for a reason other than a missing file (`absent`: key → why).
 */
export function lintTemplate(
  input: TemplateInput,
  lookup: KeyLookup,
  absent: ReadonlyMap<string, string> = new Map(),
): Finding[] {
  const { file, body, bodyLine, dialect } = input
  const findings: Finding[] = []
  const template = compileTemplate(body, { dialect, strict: false })
  for (const d of template.diagnostics) {
    findings.push({
      severity: dialect === 'mustache' ? 'error' : 'warning',
      code: d.code,
      message: d.message,
      file,
      line: d.line + bodyLine - 1,
      column: d.column,
    })
  }
  const tags = (dialect === 'mustache' ? tokenizeMustache(body) : tokenizeBracket(body)).tags
  const lines = new LineCounter(body)
  for (const tag of tags) {
    if (tag.key === '') continue
    const at = lines.at(tag.start)
    const where = { file, line: at.line + bodyLine - 1, column: at.column }
    const found = lookup(tag.key)
    const why = absent.get(tag.key)
    if (why !== undefined) findings.push({ severity: 'warning', code: 'file-absent', message: why, ...where })
    if (!found.known) {
      findings.push({
        severity: 'error',
        code: 'unknown-variable',
        message: `unknown variable ${tag.key}: ${found.why}`,
        ...where,
      })
    } else if (found.stability === 'turn') {
      findings.push({
        severity: 'warning',
        code: 'turn-in-system-prompt',
        message:
          `${tag.key} changes between turns: in the system prompt it goes stale and its change breaks the provider cache; ` +
          'send it in the environment message (environmentDelta) instead',
        ...where,
      })
    }
  }
  return findings
}

/** Why a key is unknown, naming what would be known instead. */
export function unknownWhy(
  key: string,
  namespaces: readonly string[],
  keysOf: (ns: string) => string[],
): string {
  const ns = keyNamespace(key)
  if (ns === undefined) {
    return 'nothing registers this plain name; use a namespaced key such as prompt:cwd, or pin it with --set'
  }
  if (!namespaces.includes(ns)) {
    return `no resolver answers the namespace "${ns}" (known: ${namespaces.join(', ')}); check the spelling or pin it with --set`
  }
  return `the ${ns} namespace knows only ${keysOf(ns).join(', ')}; check the spelling`
}
