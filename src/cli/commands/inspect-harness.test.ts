import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { resolveTokenizer } from '../../compile/index.js'
import { run } from '../run.js'

// Issue 31, finding 6: in a harness mode, inspect's numbers are those of what the harness sends.
let dir: string
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-inspect-harness-')))
  // The user's own files (~/.claude/CLAUDE.md, ~/.gemini/GEMINI.md) stay out of every run.
  await mkdir(join(dir, 'home'))
  vi.stubEnv('HOME', join(dir, 'home'))
})
afterAll(async () => {
  vi.unstubAllEnvs()
  await rm(dir, { recursive: true, force: true })
})

async function repo(name: string, files: Record<string, string>): Promise<string> {
  const root = join(dir, name)
  await mkdir(root, { recursive: true })
  execFileSync('git', ['init', '-q', root])
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), text)
  }
  return root
}

async function cli(cwd: string, args: string[]): Promise<string> {
  let stdout = ''
  let stderr = ''
  const code = await run(args, {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: { SYSPROMPT_CACHE: 'off', XDG_CONFIG_HOME: join(dir, 'config'), HOME: join(dir, 'home') },
    cwd,
  })
  expect(stderr).toBe('')
  expect(code).toBe(0)
  return stdout
}

interface Part {
  placement: string
  tokens: number
  text?: string
}

const inspect = async (cwd: string, args: string[]) =>
  JSON.parse(await cli(cwd, ['inspect', '--json', ...args]))
const sum = (parts: readonly Part[]) => parts.reduce((n, p) => n + p.tokens, 0)

describe('inspect --mode <harness>: the cache block describes the harness view', () => {
  it('claude: one total, the harness parts; the prefix they form; the verdict on it', async () => {
    const root = await repo('claude-cache', { 'CLAUDE.md': '# Project\n\nBe brief. Keep the tests green.\n' })
    const data = await inspect(root, [
      '--mode',
      'claude',
      '--tokenizer',
      'o200k',
      '--model',
      'claude-sonnet-4-5',
    ])
    const parts: Part[] = data.instructions.harness
    expect(parts.map((p) => p.placement)).toEqual(['first-user-message'])
    // The preamble Claude Code adds makes the view differ from sysprompt's prompt: the block follows the view.
    expect(sum(parts)).not.toBe(data.totals.tokens)
    expect(data.cache).toMatchObject({
      view: 'harness',
      tokens: sum(parts),
      breakpoints: [],
      cacheableTokens: 0,
    })
    const prefix = { end: 1, tokens: sum(parts), through: 'first-user-message' }
    expect(data.stablePrefix).toEqual({ static: prefix, session: prefix })
    expect(data.cache.warnings).toEqual([
      expect.objectContaining({
        code: 'below-cache-minimum',
        message: expect.stringContaining('claude sends'),
      }),
    ])
    // The harness's own system prompt and tools before it bring the prefix past the minimum.
    const based = await inspect(root, [
      '--mode',
      'claude',
      '--tokenizer',
      'o200k',
      '--model',
      'claude-sonnet-4-5',
      '--base-tokens',
      '5000',
    ])
    expect(based.cache).toMatchObject({ tokens: sum(parts), cacheableTokens: sum(parts), warnings: [] })

    const text = await cli(root, ['inspect', '--mode', 'claude', '--tokenizer', 'o200k'])
    const block = text.slice(text.indexOf('\nCache ('))
    expect(block).toMatch(new RegExp(`^ {2}claude sends +${sum(parts)} tokens`, 'm'))
    expect(block).toMatch(
      new RegExp(`^ {2}prefix at start +${sum(parts)} tokens, through first-user-message`, 'm'),
    )
    expect(block).not.toContain('static + session prefix')
  })

  it('gemini: a file late-bound to a tool result counts in the total, outside the prefix', async () => {
    const root = await repo('gemini-cache', {
      'GEMINI.md': 'Top rules.\n',
      'sub/GEMINI.md': 'Rules for the sub package.\n',
      'sub/a.ts': 'export {}\n',
    })
    const data = await inspect(root, ['--mode', 'gemini', '--path', 'sub/a.ts'])
    const parts: Part[] = data.instructions.harness
    expect(parts.map((p) => p.placement)).toEqual(['first-user-message', 'tool-result'])
    expect(data.cache).toMatchObject({ view: 'harness', tokens: sum(parts), providerFrom: 'mode' })
    expect(data.stablePrefix.session).toEqual({
      end: 1,
      tokens: parts[0]!.tokens,
      through: 'first-user-message',
    })
  })

  it("sysprompt mode keeps the prompt's own plan", async () => {
    const root = await repo('sysprompt-cache', { 'AGENTS.md': 'Be brief.\n' })
    const data = await inspect(root, [])
    expect(data.cache).toMatchObject({ view: 'prompt', tokens: data.totals.tokens })
    expect(data.cache.breakpoints.length).toBeGreaterThan(0)
    expect(data.stablePrefix.session.through).toBe(data.sections.at(-1).name)
  })
})

describe('inspect --mode claude: the instruction files as Claude Code sends them', () => {
  it('counts a CLAUDE.md without the HTML comments Claude Code strips, as its view does', async () => {
    const root = await repo('claude-comment', {
      'CLAUDE.md':
        '# Project\n\n<!-- A note for the humans who maintain this file, never sent. -->\nBe brief.\n',
    })
    const data = await inspect(root, ['--mode', 'claude', '--tokenizer', 'o200k'])
    const view = JSON.parse(await cli(root, ['show', '--mode', 'claude', '--as-harness', '--json']))
    const text: string = view.parts[0].text
    const head = `Contents of ${join(root, 'CLAUDE.md')} (project instructions, checked into the codebase):\n\n`
    const sent = text.slice(text.indexOf(head) + head.length, text.lastIndexOf('\n</system-reminder>'))
    expect(sent).toBe('# Project\n\nBe brief.')
    expect(data.instructions.files[0].tokens).toBe(resolveTokenizer('o200k').count(sent))
  })

  it('nests an @import under its importer, in the JSON and in the table', async () => {
    const root = await repo('claude-import', {
      'CLAUDE.md': '# Project\n\nSee @docs/style.md for the style.\n',
      'docs/style.md': 'Use tabs.\n',
    })
    const data = await inspect(root, ['--mode', 'claude'])
    expect(data.instructions.files).toEqual([
      expect.objectContaining({
        shown: 'CLAUDE.md',
        imports: [expect.objectContaining({ shown: 'docs/style.md', imports: [] })],
      }),
    ])
    expect(data.instructions.files[0].imports[0].tokens).toBeGreaterThan(0)
    const text = await cli(root, ['inspect', '--mode', 'claude'])
    expect(text).toMatch(/^ {2}CLAUDE\.md +\d/m)
    expect(text).toMatch(/^ {2}└ docs\/style\.md \(imported\) +\d/m)
  })
})
