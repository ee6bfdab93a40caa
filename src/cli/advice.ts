/**
 * Advice written for the library, said as the command line can follow it:
 * the node and compile layers name their own options (`planCache`'s
 * `minTokens`, `discoverInstructions`' `maxBytes`), which no flag sets, so
 * a sentence naming one is replaced here by one naming what works on the
 * command line. Every message the CLI prints from those layers passes here.
 */
const REPLACED: readonly (readonly [library: string, cli: string])[] = [
  [
    'Pass minTokens or minimums to planCache if it caches shorter prefixes.',
    'If it caches shorter prefixes, this verdict errs on the side of warning (the command line takes minimums from the table only; check --model for a typo).',
  ],
  [
    'Raise maxBytes or shorten the files nearer the working directory.',
    'Shorten the files nearer the working directory (the command line keeps this budget).',
  ],
]

/** `message` with library advice replaced by advice the command line can follow. */
export function cliAdvice(message: string): string {
  let out = message
  for (const [library, cli] of REPLACED) out = out.replace(library, cli)
  return out
}
