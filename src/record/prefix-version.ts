import type { CompiledPrompt, CompiledSection, SessionVersion } from '../compile/types.js'
import { hashText, utf8Length } from '../shared/hash.js'

/** A part of a recorded prefix as the ledger keeps it: its section name and its text, masked. */
export interface PrefixPart {
  section: string
  text: string
}

/** Parts are joined by a blank line in a version's text, so `diff` and `history` read them as sections. */
const SEPARATOR = '\n\n'

/**
 * A recorded prefix as a ledger version (SPEC §11): one section per part
 * (`tool:<name>`, `system:<n>`, `message:1`) in the provider's cache
 * order, each static (the prefix a cache reuses); tokens as `count`
 * counts them (an estimate: only the provider's usage is exact). Tools
 * are sections here, not a tool list, so `diff` names the tool that changed.
 */
export function prefixPrompt(
  parts: readonly PrefixPart[],
  count: (text: string) => number,
  tokenizer: string,
): CompiledPrompt {
  const sections: CompiledSection[] = []
  let text = ''
  let tokens = 0
  parts.forEach((part, order) => {
    if (order > 0) text += SEPARATOR
    const start = text.length
    text += part.text
    const sectionTokens = count(part.text)
    tokens += sectionTokens
    sections.push({
      name: part.section,
      order,
      stability: 'static',
      start,
      end: text.length,
      tokens: sectionTokens,
      hash: hashText(part.text),
    })
  })
  return {
    text,
    hash: hashText(text),
    bytes: utf8Length(text),
    tokens,
    tokenizer,
    sections,
    tools: [],
    toolsHash: hashText('[]'),
    manifest: [],
    stablePrefix: { static: { end: text.length, tokens }, session: { end: text.length, tokens } },
    warnings: [],
    cuts: [],
  }
}

/** The ledger version of a recorded prefix, numbered `version`, kept with the prefix hash the calls carry. */
export function prefixVersion(
  compiled: CompiledPrompt,
  version: number,
  prefixHash: string,
  at: Date,
  reason: string,
): SessionVersion {
  return {
    version,
    hash: compiled.hash,
    tokens: compiled.tokens,
    reason,
    at: at.toISOString(),
    compiled,
    prefixHash,
  }
}
