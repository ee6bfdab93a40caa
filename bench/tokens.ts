/**
 * Token counting on adversarial inputs (issue: linear counting): 250 KB of
 * NUL bytes, 100 KB of emoji, a long base64 blob and minified JSON, each
 * timed against prose of the same size in interleaved rounds; the ratio is
 * per character, so linear counting keeps it near a constant. The
 * tokenizer's own merge cache is cleared before every count (a repeated
 * text would otherwise be a lookup).
 */
import { clearMergeCache } from 'gpt-tokenizer/encoding/o200k_base'
import { o200k } from '../src/index.js'
import '../src/node/index.js'
import { heading, table } from './format.js'
import { interleave, ratioWithSpread } from './rounds.js'

/** A deterministic pseudo-random generator, so every run counts the same texts. */
function random(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

const WORDS =
  'read the files a change touches before you edit them and keep each edit small enough to review when command fails quote first error line say what you will try next'.split(
    ' ',
  )

function prose(length: number): string {
  const next = random(1)
  let out = ''
  while (out.length < length)
    out += `${WORDS[Math.floor(next() * WORDS.length)]}${next() < 0.1 ? '.\n' : ' '}`
  return out.slice(0, length)
}

function emoji(length: number): string {
  const next = random(2)
  let out = ''
  while (out.length < length) out += String.fromCodePoint(0x1f300 + Math.floor(next() * 0x2ff))
  return out
}

function base64(length: number): string {
  const next = random(3)
  const bytes = new Uint8Array(Math.ceil((length * 3) / 4))
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(next() * 256)
  return Buffer.from(bytes).toString('base64').slice(0, length)
}

function minifiedJson(length: number): string {
  const next = random(4)
  const items: unknown[] = []
  let text = '[]'
  while (text.length < length) {
    for (let i = 0; i < 200; i++) {
      items.push({
        id: Math.floor(next() * 1e9),
        name: WORDS[i % WORDS.length],
        ok: next() < 0.5,
        v: [next()],
      })
    }
    text = JSON.stringify(items)
  }
  return text.slice(0, length)
}

export async function runTokensBench({ quick }: { quick: boolean }): Promise<void> {
  console.log(heading('Token counting: adversarial inputs against prose of the same size (o200k)'))
  const kinds: [string, string][] = [
    ['250 KB of NUL bytes', '\0'.repeat(250_000)],
    ['100 KB of emoji', emoji(100_000)],
    ['base64 blob, 200 KB', base64(200_000)],
    ['minified JSON, 200 KB', minifiedJson(200_000)],
  ]
  o200k.count('load the encoding first')
  const timedCount = (name: string, text: string) => ({
    name,
    run: () => {
      clearMergeCache()
      const t0 = performance.now()
      o200k.count(text)
      return performance.now() - t0
    },
  })
  const cases = kinds.flatMap(([name, text]) => [
    timedCount(name, text),
    timedCount(`prose for ${name}`, prose(text.length)),
  ])
  const results = await interleave(cases, quick ? 3 : 9)
  console.log(
    table(
      ['input', 'ms', 'prose ms', 'time × prose of the same size'],
      kinds.map(([name]) => {
        const a = results.get(name)!
        const b = results.get(`prose for ${name}`)!
        return [name, a.median.toFixed(1), b.median.toFixed(1), ratioWithSpread(a, b)]
      }),
      ['l', 'r', 'r', 'r'],
    ),
  )
}
