/**
 * Writes the encodings' rank tables into `dist/tokenizer/` (run by
 * `npm run build`): gpt-tokenizer's own ranks of o200k_base and
 * cl100k_base, each as a compact table (src/node/rank-table.ts) that a
 * cold count reads in one file read instead of building gpt-tokenizer's
 * 200 000-entry map. Before writing, every rank is checked to look up as
 * gpt-tokenizer looks it up (its `getBpeRankFromBytes`), so a table can
 * only answer what gpt-tokenizer answers.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  type BpeRanks,
  decodeRankTable,
  encodeRankTable,
  NONE,
  pairRank,
  textRank,
} from '../src/node/rank-table.js'
import { rankTableFile } from '../src/node/rank-table-file.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'dist', 'tokenizer')
const require = createRequire(import.meta.url)

interface Core {
  getBpeRankFromBytes(bytes: Uint8Array): number | undefined
  getBpeRankFromString(text: string): number | undefined
}
interface CoreModule {
  BytePairEncodingCore: new (options: { bytePairRankDecoder: BpeRanks }) => Core
}

const { version } = require('gpt-tokenizer/package.json') as { version: string }
const { BytePairEncodingCore } = require('gpt-tokenizer/BytePairEncodingCore') as CoreModule
const { O200K_TOKEN_SPLIT_REGEX, CL100K_TOKEN_SPLIT_REGEX } =
  require('gpt-tokenizer/encodingParams/constants') as Record<string, RegExp>
const SPLIT: Record<string, RegExp | undefined> = {
  o200k_base: O200K_TOKEN_SPLIT_REGEX,
  cl100k_base: CL100K_TOKEN_SPLIT_REGEX,
}
const encoder = new TextEncoder()
const orNone = (rank: number | undefined): number => rank ?? NONE
await mkdir(out, { recursive: true })
for (const name of ['o200k_base', 'cl100k_base']) {
  const ranks = (require(`gpt-tokenizer/bpeRanks/${name}`) as { default: BpeRanks }).default
  const payload = encodeRankTable(ranks)
  const table = decodeRankTable(payload)
  if (table === undefined) throw new Error(`${name}: the table written does not read back`)
  const core = new BytePairEncodingCore({ bytePairRankDecoder: ranks })
  ranks.forEach((value, rank) => {
    if (value === undefined) return
    const bytes = typeof value === 'string' ? encoder.encode(value) : Uint8Array.from(value)
    if (orNone(core.getBpeRankFromBytes(bytes)) !== pairRank(table, bytes, 0, bytes.length))
      throw new Error(`${name}: rank ${rank}'s bytes do not look up as gpt-tokenizer looks them up`)
    if (
      typeof value === 'string' &&
      orNone(core.getBpeRankFromString(value)) !== textRank(table, bytes, 0, bytes.length)
    )
      throw new Error(`${name}: rank ${rank}'s string does not look up as gpt-tokenizer looks it up`)
  })
  const file = rankTableFile(name, version, SPLIT[name]!, payload)
  await writeFile(join(out, `${name}.bin`), file)
  console.log(`rank table: ${name}, ${ranks.length} ranks, ${file.length} bytes in dist/tokenizer`)
}
