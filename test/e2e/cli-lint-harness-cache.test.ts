import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, json, makeGitDir, useSandbox, write } from './cli.test-helper.js'

// lint's cache verdict in a harness mode judges what that harness sends (its view), as inspect's cache
// block does, not sysprompt's own template (issue 31, finding 6).
useSandbox()

describe('lint --mode <harness>: the cache finding', () => {
  it("speaks of the harness's prefix, not of sysprompt's template sections", async () => {
    const repo = await makeGitDir('lint-harness-cache')
    await write(join(repo, 'CLAUDE.md'), '# Project\n\nBe brief.\n')
    const [claude, own] = await Promise.all([
      cli(['lint', '--json', '--mode', 'claude', '--model', 'claude-sonnet-4-5', '--tokenizer', 'o200k'], {
        cwd: repo,
      }),
      cli(['lint', '--json', '--model', 'claude-sonnet-4-5', '--tokenizer', 'o200k'], { cwd: repo }),
    ])
    const below = (r: Parameters<typeof json>[0]) =>
      json(r).filter((f: { code: string }) => f.code === 'below-cache-minimum')
    expect(below(claude)).toHaveLength(1)
    expect(below(claude)[0].message).toMatch(/^what claude sends at the start \(in the first user message\)/)
    expect(below(own).length).toBeGreaterThan(0)
    expect(below(own)[0].message).not.toContain('claude sends')
  }, 120_000)
})
