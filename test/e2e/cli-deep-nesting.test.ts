import { join } from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { cli, env, fast, json, makeGitDir, sandbox, useSandbox, write } from './cli.test-helper.js'

// Files of a repository nested past the limit (256 levels): the built CLI
// names the file and the limit, reads every other file, and no command dies
// on a stack overflow (5 000 nested `[` in opencode.json took most commands
// down, plain `lint` included).

useSandbox()
vi.setConfig({ testTimeout: 120_000 })

const DEEP = `${'['.repeat(5000)}${']'.repeat(5000)}`
const LIMIT = 'nests lists and objects deeper than 256 levels'
const RULES = 'Run the tests before you finish.'

let repo: string
beforeAll(async () => {
  repo = await makeGitDir('deep-nesting')
  await write(join(repo, 'AGENTS.md'), `# Project\n\n${RULES}\n`)
  await write(join(repo, 'GEMINI.md'), `# Gemini\n\n${RULES}\n`)
  await write(join(repo, 'opencode.json'), `{"instructions": ${DEEP}}`)
  await write(join(repo, '.gemini', 'settings.json'), `// ours\n{"context": {"fileName": ${DEEP}}}`)
  await write(join(repo, '.sysprompt', 'rules', 'deep.md'), `---\nextra: ${DEEP}\n---\nDeep rule.\n`)
  await write(join(repo, '.sysprompt', 'rules', 'kept.md'), '---\ndescription: kept\n---\nKept rule.\n')
})

function noOverflow(r: { stdout: string; stderr: string }): void {
  expect(r.stdout + r.stderr).not.toMatch(/call stack|RangeError|unexpected/i)
}

describe('nesting past the limit', () => {
  it('show and inspect read the other files; inspect names each deep settings file, its place and the limit', async () => {
    for (const mode of ['opencode', 'gemini']) {
      const [show, inspect] = await Promise.all([
        cli(['show', '--mode', mode, ...fast], { cwd: repo }),
        cli(['inspect', '--mode', mode, '--json', ...fast], { cwd: repo }),
      ])
      noOverflow(show)
      noOverflow(inspect)
      expect(show.code).toBe(0)
      expect(show.stdout).toContain(RULES)
      expect(inspect.code).toBe(0)
      const diagnostics = JSON.stringify(json(inspect).instructions.diagnostics)
      if (mode === 'opencode') expect(diagnostics).toContain(`opencode.json ${LIMIT}`)
      else expect(diagnostics).toContain(`.gemini/settings.json ${LIMIT}`)
    }
  })

  it('plain lint finishes, reporting the deep rule by name', async () => {
    const r = await cli(['lint'], { cwd: repo })
    noOverflow(r)
    expect(r.stdout + r.stderr).toMatch(/deep\.md:2:\d+: .*nests lists and objects deeper than 256 levels/)
  })

  it('a rule whose front matter nests past the limit is refused by name, at its place; the others load', async () => {
    const r = await cli(['show', ...fast], { cwd: repo })
    noOverflow(r)
    expect(r.stderr).toMatch(
      /deep\.md:2:\d+: the front matter nests lists and objects deeper than 256 levels/,
    )
    expect(r.stdout).not.toContain('Deep rule.')
  })

  it("codex mode names a deep config.toml in the user's Codex home and still reads AGENTS.md", async () => {
    const codexHome = join(sandbox.base, 'codex-home')
    await write(join(codexHome, 'config.toml'), `project_doc_fallback_filenames = ${DEEP}\n`)
    const withHome = { cwd: repo, env: env({ CODEX_HOME: codexHome }) }
    const [show, inspect] = await Promise.all([
      cli(['show', '--mode', 'codex', ...fast], withHome),
      cli(['inspect', '--mode', 'codex', '--json', ...fast], withHome),
    ])
    noOverflow(show)
    expect(show.stdout).toContain(RULES)
    expect(JSON.stringify(json(inspect).instructions.diagnostics)).toContain(`config.toml ${LIMIT}`)
  })
})
