import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repoRoot } from './cli.test-helper.js'

// The README's code blocks that import `sysprompt` run as written, against
// the built package installed under its own name in a scratch project, and
// each annotated line (`expression // what it shows`) is captured so the
// test can hold the README to what it says.

const tsx = join(repoRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs')

/** The fenced `ts` blocks of the README that import the package. */
function readmeBlocks(markdown: string): string[] {
  const blocks: string[] = []
  for (const match of markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
    const code = match[1] ?? ''
    if (/from 'sysprompt(\/[a-z]+)?'/.test(code)) blocks.push(code)
  }
  return blocks
}

/** The block with each annotated bare expression recorded as `[expression, comment, value]`. */
function instrument(code: string): string {
  const lines = code.split('\n').map((line) => {
    const m = /^(?!const |let |import |for |registry\.)(\S.*?)\s+\/\/ (.+)$/.exec(line)
    if (m === null) return line
    const [, expression = '', comment = ''] = m
    return `__shown.push([${JSON.stringify(expression)}, ${JSON.stringify(comment)}, ${expression}])`
  })
  const imports = lines.filter((l) => l.startsWith('import '))
  const rest = lines.filter((l) => !l.startsWith('import '))
  return [
    ...imports,
    'const __shown: unknown[] = []',
    ...rest,
    'process.stdout.write(JSON.stringify(__shown))',
  ].join('\n')
}

let dir = ''
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-readme-')))
  await mkdir(join(dir, 'node_modules'), { recursive: true })
  // The package as a user's project sees it: by name, from node_modules.
  await symlink(repoRoot, join(dir, 'node_modules', 'sysprompt'), 'dir')
  await writeFile(join(dir, 'package.json'), '{ "type": "module", "private": true }\n')
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

function run(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [tsx, file], { cwd: dir, encoding: 'utf8' }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr })
    })
  })
}

type Shown = [expression: string, comment: string, value: unknown]

describe('the README', async () => {
  const blocks = readmeBlocks(await readFile(join(repoRoot, 'README.md'), 'utf8'))

  it('has library samples that import the package', () => {
    expect(blocks.length).toBeGreaterThan(0)
  })

  it.each(blocks.map((code, i) => [i, code] as const))('block %i runs as written', async (i, code) => {
    const plain = join(dir, `block-${i}.ts`)
    await writeFile(plain, code)
    const asWritten = await run(plain)
    expect(asWritten.stderr).toBe('')
    expect(asWritten.code).toBe(0)
  })

  it('the library sample shows what its comments say', async () => {
    const code = blocks.find((b) => b.includes('const compiled = compile('))
    expect(code).toBeDefined()
    const file = join(dir, 'library-shown.ts')
    await writeFile(file, instrument(code ?? ''))
    const r = await run(file)
    expect(r.stderr).toBe('')
    const shown = new Map((JSON.parse(r.stdout) as Shown[]).map(([expr, , value]) => [expr, value]))
    expect(shown.get('compiled.hash')).toMatch(/^sha256:[0-9a-f]{64}$/)
    const sections = shown.get('compiled.sections') as {
      name: string
      start: number
      end: number
      tokens: number
      hash: string
    }[]
    expect(sections.map((s) => s.name)).toEqual(['harness:identity', 'tool:read', 'repo'])
    for (const s of sections) {
      expect(s.end).toBeGreaterThan(s.start)
      expect(s.tokens).toBeGreaterThan(0)
      expect(s.hash).toMatch(/^sha256:/)
    }
    expect(shown.get('compiled.warnings')).toEqual([])
    expect(shown.get('diffCompiled(compiled, compiled).identical')).toBe(true)
    const plan = [...shown.entries()].find(([e]) => e.startsWith('planCache('))?.[1] as {
      breakpoints: number[]
      warnings: { code: string }[]
    }
    expect(plan.breakpoints.length).toBeGreaterThan(0)
    expect(plan.warnings.map((w) => w.code)).toContain('below-cache-minimum')
    // "cache_control once the prefix is cacheable": this prompt is far below the minimum, so no block is marked.
    const anthropic = [...shown.entries()].find(([e]) => e.startsWith('toAnthropic('))?.[1] as {
      system: { text: string; cache_control?: unknown }[]
      tools: { name: string }[]
    }
    expect(anthropic.system).toHaveLength(sections.length)
    expect(anthropic.system.some((b) => b.cache_control !== undefined)).toBe(false)
    expect(anthropic.tools.map((t) => t.name)).toEqual(['read'])
  })
})
