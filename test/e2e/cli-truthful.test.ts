import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, env, fast, json, makeGitDir, makeRepo, useSandbox, write } from './cli.test-helper.js'

// What the command says is true: findings at the right place, cache verdicts
// only when a provider or model is named and the same everywhere, numbers
// counted and labelled honestly, output that fits a terminal.
useSandbox()

// Several runs of the built command per test; a busy 2-core machine needs more than the default 30 s.
const SLOW = 120_000

describe('positions', () => {
  it(
    'an inline reference in a GEMINI.md is reported at its line and column there',
    async () => {
      const repo = await makeGitDir('gemini-ref')
      await write(join(repo, 'GEMINI.md'), '# Project\n\nWhen done, ping @alice; she reviews.\n')
      const r = await cli(['lint', '--mode', 'gemini', ...fast], { cwd: repo })
      const line = r.stdout.split('\n').find((l) => l.includes('[import-missing]'))
      expect(line).toMatch(/^GEMINI\.md:3:17: warning/)
    },
    SLOW,
  )

  it(
    "a Codex cut is reported at the line where the model stops reading, not at the file's start",
    async () => {
      const repo = await makeGitDir('codex-cut')
      const lines = Array.from(
        { length: 310 },
        (_, i) => `line ${String(i + 1).padStart(3, '0')} ${'x'.repeat(100)}`,
      )
      await write(join(repo, 'AGENTS.md'), `${lines.join('\n')}\n`)
      const r = json(await cli(['lint', '--json', '--mode', 'codex', ...fast], { cwd: repo }))
      const cut = r.find((f: { code: string }) => f.code === 'silently-truncated')
      expect(cut.file).toContain('AGENTS.md')
      // 32 KiB of 110-byte lines: the model stops in line 298.
      expect(cut.line).toBe(Math.floor((32 * 1024) / 110) + 1)
      expect(cut.column).toBeGreaterThan(1)
    },
    SLOW,
  )
})

describe('one cache verdict', () => {
  it(
    'no cache-minimum finding without --provider or --model, --mode included',
    async () => {
      const repo = await makeRepo('verdict')
      const [plain, codex, gemini, named] = await Promise.all([
        cli(['lint', '--json', ...fast], { cwd: repo }),
        cli(['lint', '--json', '--mode', 'codex', ...fast], { cwd: repo }),
        cli(['lint', '--json', '--mode', 'gemini', ...fast], { cwd: repo }),
        cli(['lint', '--json', '--model', 'claude-sonnet-4-5', ...fast], { cwd: repo }),
      ])
      const codes = (r: Awaited<ReturnType<typeof cli>>) => json(r).map((f: { code: string }) => f.code)
      expect(codes(plain)).not.toContain('below-cache-minimum')
      expect(codes(codex)).not.toContain('below-cache-minimum')
      expect(codes(gemini)).not.toContain('below-cache-minimum')
      expect(codes(named)).toContain('below-cache-minimum')
      // --mode codex plans for OpenAI.
      expect(
        json(await cli(['inspect', '--json', '--mode', 'codex', ...fast], { cwd: repo })).cache,
      ).toMatchObject({
        provider: 'openai',
        named: false,
      })
    },
    SLOW,
  )

  it(
    'a small prompt gets no cache_control, and diff says nothing is served from cache',
    async () => {
      const repo = await makeRepo('verdict-small')
      const anthropic = json(
        await cli(['show', '--format', 'anthropic', '--model', 'claude-sonnet-4-5', ...fast], { cwd: repo }),
      )
      expect(anthropic.system.length).toBeGreaterThan(0)
      expect(anthropic.system.some((b: { cache_control?: unknown }) => b.cache_control !== undefined)).toBe(
        false,
      )
      await write(
        join(repo, 'a.json'),
        (await cli(['show', '--format', 'json', ...fast], { cwd: repo })).stdout,
      )
      const [named, unnamed] = await Promise.all([
        cli(['diff', 'a.json', 'a.json', '--model', 'claude-sonnet-4-5'], { cwd: repo }),
        cli(['diff', 'a.json', 'a.json'], { cwd: repo }),
      ])
      expect(named.stdout).toMatch(
        /^identical: .*below the 1 024-token minimum .*nothing is served from cache\n$/,
      )
      expect(named.stdout).not.toContain('all reusable')
      expect(unnamed.stdout).toContain('pass --provider or --model')
      // The harness's own share counts: with it the same prompt is cached.
      const based = await cli(
        ['diff', 'a.json', 'a.json', '--model', 'claude-sonnet-4-5', '--base-tokens', '2000'],
        { cwd: repo },
      )
      expect(based.stdout).toContain('all reusable')
      const marked = json(
        await cli(
          ['show', '--format', 'anthropic', '--model', 'claude-sonnet-4-5', '--base-tokens', '2000', ...fast],
          { cwd: repo },
        ),
      )
      expect(marked.system.some((b: { cache_control?: unknown }) => b.cache_control !== undefined)).toBe(true)
    },
    SLOW,
  )
})

describe('honest numbers and widths', () => {
  it(
    "a file's tokens are its own text's, the header apart, and counts name their tokenizer",
    async () => {
      const repo = await makeGitDir('numbers')
      await write(join(repo, 'AGENTS.md'), 'Be brief.\n')
      const data = json(await cli(['inspect', '--json', '--tokenizer', 'o200k'], { cwd: repo }))
      const [file] = data.instructions.files
      expect(file.tokens).toBe(3)
      expect(file.framingTokens).toBeGreaterThan(0)
      const text = await cli(['inspect', '--tokenizer', 'o200k'], { cwd: repo, env: env({ COLUMNS: '80' }) })
      // No provider named: the tokenizer alone, no provider's name (issue 31, finding 6).
      expect(text.stdout).toMatch(/^tokens {4}o200k$/m)
      expect(text.stdout).not.toContain('anthropic')
      expect(
        (await cli(['inspect', '--tokenizer', 'o200k', '--provider', 'anthropic'], { cwd: repo })).stdout,
      ).toContain('o200k; an approximation for anthropic')
      expect((await cli(['inspect', '--provider', 'openai'], { cwd: repo })).stdout).toMatch(
        /^tokens {4}o200k$/m,
      )
    },
    SLOW,
  )

  it(
    'show adds nothing to the prompt in a pipe (a terminal gets the final line break); inspect fits 80 columns with long names; numbers are grouped alike',
    async () => {
      const repo = await makeRepo('widths')
      await write(
        join(repo, 'AGENTS.md'),
        `# Project\n\n${'Keep the build green and the tests fast. '.repeat(300)}\n`,
      )
      await write(
        join(repo, '.sysprompt', 'rules', 'a-rather-long-rule-name-for-the-table.md'),
        '---\ndescription: long\n---\nA rule.\n',
      )
      const show = await cli(['show', ...fast], { cwd: repo })
      const compiled = await cli(['show', '--json', ...fast], { cwd: repo })
      expect(show.stdout).toBe(JSON.parse(compiled.stdout).text)
      const inspect = await cli(['inspect', ...fast], { cwd: repo, env: env({ COLUMNS: '80' }) })
      for (const line of inspect.stdout.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80)
      expect(inspect.stdout).toMatch(/\d \d{3}/)
      expect(inspect.stdout).not.toMatch(/\bchar \d/)
    },
    SLOW,
  )
})
