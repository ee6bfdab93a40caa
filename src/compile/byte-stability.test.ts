import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PromptAssembly } from '../registry/types.js'
import { compile } from './compile.js'

const run = promisify(execFile)
const repo = fileURLToPath(new URL('../..', import.meta.url))
const compileModule = pathToFileURL(join(repo, 'src/compile/compile.ts')).href

// Text that locale- or zone-dependent code would change: Turkish casing of
// i/I, numbers, accented and astral characters, CRLF, code-unit order.
const assembly: PromptAssembly = {
  sections: [
    {
      name: 'identity',
      order: -100,
      text: 'You are İnci. ıiIİ 1234567.89 ß é 😀',
      dialect: 'mustache',
      stability: 'static',
    },
    {
      name: 'project',
      order: 0,
      text: 'Project {{name}}\r\nLines: {{count}}\r\n',
      dialect: 'mustache',
      stability: 'static',
    },
    {
      name: 'env',
      order: 10,
      text: '[if prompt:cwd]cwd [prompt:cwd][endif]',
      dialect: 'bracket',
      stability: 'session',
    },
  ],
  tools: [
    {
      name: 'Zeta',
      parameters: { type: 'object', properties: { b: { type: 'string' }, a: { type: 'number' }, Ä: {} } },
    },
  ],
  variables: { name: 'Île', count: '1000000', 'prompt:cwd': '/home/İ' },
  stability: {},
}

const script = (assemblyFile: string) => `
import { readFileSync } from 'node:fs'
import { compile } from ${JSON.stringify(compileModule)}
import { loadTokenizer } from ${JSON.stringify(compileModule.replace(/compile\.ts$/, 'tokenizers.ts'))}
// The pure layer alone, as a browser would use it: load the encoding first.
await loadTokenizer('o200k')
const c = compile(JSON.parse(readFileSync(${JSON.stringify(assemblyFile)}, 'utf8')), { exactTokens: true })
console.log(JSON.stringify({ text: c.text, hash: c.hash, toolsHash: c.toolsHash, tokens: c.tokens, exactTokens: c.exactTokens }))
`

describe('byte stability', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sysprompt-bytes-'))
    await writeFile(join(dir, 'assembly.json'), JSON.stringify(assembly))
    await writeFile(join(dir, 'compile-once.mts'), script(join(dir, 'assembly.json')))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  async function compileIn(env: Record<string, string>): Promise<unknown> {
    const { stdout } = await run('npx', ['tsx', join(dir, 'compile-once.mts')], {
      cwd: repo,
      env: { ...process.env, ...env },
    })
    return JSON.parse(stdout)
  }

  it('gives the same bytes and hashes under any time zone and locale', async () => {
    const [utc, kolkata] = await Promise.all([
      compileIn({ TZ: 'UTC', LANG: 'C', LC_ALL: 'C' }),
      compileIn({ TZ: 'Asia/Kolkata', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' }),
    ])
    expect(kolkata).toEqual(utc)
    const here = compile(assembly, { exactTokens: true })
    const { text, hash, toolsHash, tokens, exactTokens } = here
    expect(utc).toEqual({ text, hash, toolsHash, tokens, exactTokens })
    expect(hash).toBe(`sha256:${createHash('sha256').update(text).digest('hex')}`)
    expect(text).not.toContain('\r')
    expect(text).toContain('Lines: 1000000')
  }, 60_000)
})
