import { isWordUnit, type TextHit } from './types.js'

/** Longest name between `<|` and `|>` that still reads as a special token. */
const MAX_NAME = 64

const isNameUnit = (c: number) => isWordUnit(c) || c === 0x2d || c === 0x2e || c === 0x3a

/**
 * Special-token text in included text (SPEC §9): `<|name|>`, the form of
 * `<|endoftext|>`, `<|im_start|>`, `<|im_end|>`, `<|fim_prefix|>` and the
 * Llama header tokens. Tokenizers count it as ordinary text, but a serving
 * stack that honours it would read a role boundary or an end of text in the
 * middle of the prompt, and some APIs reject it. Found with `indexOf` and a
 * bounded name scan that resumes after the name: linear in the text.
 */
export function scanSpecialTokens(text: string): TextHit[] {
  const hits: TextHit[] = []
  let from = 0
  for (let at = text.indexOf('<|', from); at !== -1; at = text.indexOf('<|', from)) {
    let end = at + 2
    const limit = Math.min(text.length, end + MAX_NAME)
    while (end < limit && isNameUnit(text.charCodeAt(end))) end++
    from = Math.max(end, at + 2)
    if (end === at + 2 || !text.startsWith('|>', end)) continue
    const token = text.slice(at, end + 2)
    hits.push({
      offset: at,
      severity: 'error',
      code: 'special-token',
      message: `special token ${token} in included text: a model server may read it as a control token; remove it or write it without the bars`,
    })
    from = end + 2
  }
  return hits
}
