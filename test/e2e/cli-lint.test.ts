import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { cli, json, makeRepo, oneErrorLine, useSandbox, write } from './cli.test-helper.js'

// `lint` of the built CLI: every finding at file:line:col, exit codes, --json.
useSandbox()

describe.concurrent('lint', () => {
  let repo: string
  beforeAll(async () => {
    repo = await makeRepo('lint')
    const secret = `ghp_${'Ab3dE5gH7j'.repeat(3)}K9mN0p`
    await write(
      join(repo, 'AGENTS.md'),
      `# Project\n\nToken: ${secret}\nEnd a turn with <|im_end|> here.\nA hidden \u202Eswitch.\n`,
    )
    await write(
      join(repo, 'prompt.md'),
      '---\ndescription: a template with problems\n---\nYou work in [prompt:cwd].\nToday is [system:date]; [nope:key] here.\n[if prompt:model]never closed\n',
    )
    await write(
      join(repo, 'strict.md'),
      '---\ndialect: mustache\n---\nHello {{prompt:cwd}}\n\n  {{ model }}\n',
    )
  })

  it('passes a clean project', async () => {
    const clean = await makeRepo('lint-clean')
    const r = await cli(['lint', '--tokenizer', 'estimate'], { cwd: clean })
    expect(r.code).toBe(0)
    // No cache-minimum guess either: no provider or model was named.
    expect(r.stdout).toBe('no problems found\n')
  })

  it('reports every problem at file:line:col and exits 1 on errors, never printing the secret', async () => {
    const r = await cli(['lint', '--template', 'prompt.md', '--tokenizer', 'estimate'], { cwd: repo })
    expect(r.code).toBe(1)
    const lines = r.stdout.split('\n')
    const at = (prefix: string, code: string) =>
      lines.some((l) => l.startsWith(prefix) && l.endsWith(`[${code}]`))
    expect(at('AGENTS.md:3:8: error', 'secret')).toBe(true)
    expect(at('AGENTS.md:4:17: error', 'special-token')).toBe(true)
    expect(at('AGENTS.md:5:10: error', 'bidi-control')).toBe(true)
    expect(at('prompt.md:5:10: warning', 'turn-in-system-prompt')).toBe(true)
    expect(at('prompt.md:5:25: error', 'unknown-variable')).toBe(true)
    expect(at('prompt.md:6:1: warning', 'unclosed-block')).toBe(true)
    expect(r.stdout).toContain('ghp_…')
    expect(r.stdout).not.toContain('Ab3dE5gH7j')
  })

  it('--json gives the findings as an array', async () => {
    const [strict, budget] = await Promise.all([
      cli(['lint', '--json', '--template', 'strict.md', '--tokenizer', 'estimate'], { cwd: repo }),
      cli(['lint', '--json', '--template', 'prompt.md', '--max-tokens', '10', '--tokenizer', 'estimate'], {
        cwd: repo,
      }),
    ])
    expect(strict.code).toBe(1)
    expect(json(strict)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          severity: 'error',
          code: 'malformed-reference',
          file: join(repo, 'strict.md'),
          line: 6,
          column: 3,
        }),
        expect.objectContaining({
          severity: 'error',
          code: 'secret',
          file: join(repo, 'AGENTS.md'),
          line: 3,
          column: 8,
        }),
      ]),
    )
    expect(json(budget)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          severity: 'error',
          code: 'unknown-variable',
          file: join(repo, 'prompt.md'),
          line: 5,
          column: 25,
        }),
        expect.objectContaining({ severity: 'warning', code: 'over-budget' }),
      ]),
    )
    for (const f of [...json(strict), ...json(budget)]) expect(['error', 'warning']).toContain(f.severity)
  })

  it('show refuses a template that does not compile, naming the line of the file', async () => {
    const r = await cli(['show', '--template', 'strict.md', '--tokenizer', 'estimate'], { cwd: repo })
    expect(r.code).toBe(1)
    oneErrorLine(r)
    expect(r.stderr).toContain('strict.md:6:3:')
  })
})
