import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import type { InstructionDiscovery } from '../discovery-results.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

// Which configuration files each harness mode reads (home and project),
// where a project layer counts, and what a file without the key, with a
// bad value or listed twice changes: nothing but its own setting.

afterAll(removeFixtures)

const configDiagnostics = (found: InstructionDiscovery) =>
  found.diagnostics.filter((d) => d.code === 'harness-config')

const trusted = (dir: string, extra = '') => `${extra}[projects."${dir}"]\ntrust_level = "trusted"\n`

describe('codex config.toml files', () => {
  it('takes an empty CODEX_HOME as unset: ~/.codex holds the config', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'x'.repeat(40) })
    const home = await fixtureTree({ '.codex/config.toml': 'project_doc_max_bytes = 4\n' })
    const options = { cwd: repo, home, mode: 'codex' as const, env: { CODEX_HOME: '' } }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => [f.path, f.truncated])).toEqual([[join(repo, 'AGENTS.md'), true]])
    const why = await explainInstructions({ ...options, file: 'AGENTS.md' })
    expect(why.reason).toContain('set by project_doc_max_bytes in ~/.codex/config.toml')
  })

  it('reads the trusted layers from the git root down to cwd; outside a repository, the one in cwd', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'x'.repeat(40),
      '.codex/config.toml': 'project_doc_max_bytes = 4\n',
      'pkg/lib.rs': '',
    })
    const home = await fixtureTree({ '.codex/config.toml': trusted(repo) })
    const cwd = join(repo, 'pkg')
    const found = await discoverInstructions({ cwd, home, mode: 'codex' })
    expect(found.files.map((f) => [f.path, f.truncated])).toEqual([[join(repo, 'AGENTS.md'), true]])
    expect(configDiagnostics(found)).toEqual([])

    const plain = await fixtureTree({
      'AGENTS.md': 'x'.repeat(40),
      '.codex/config.toml': 'project_doc_max_bytes = 4\n',
    })
    const plainHome = await fixtureTree({ '.codex/config.toml': trusted(plain) })
    const outside = await discoverInstructions({ cwd: plain, home: plainHome, mode: 'codex', fsRoot: plain })
    expect(outside.files.map((f) => [f.path, f.truncated])).toEqual([[join(plain, 'AGENTS.md'), true]])
    expect(configDiagnostics(outside)).toEqual([])
  })

  it('says, as information, which project config was not read and what would trust it', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'agents\n',
      '.codex/config.toml': 'project_doc_max_bytes = 4\n',
    })
    const home = await emptyHome()
    const found = await discoverInstructions({ cwd: repo, home, mode: 'codex' })
    expect(found.diagnostics).toEqual([
      {
        code: 'harness-config',
        severity: 'info',
        message: `.codex/config.toml was not read: Codex reads a project's .codex/config.toml only once the project is trusted (projects."${repo}".trust_level = "trusted" in ~/.codex/config.toml).`,
        path: join(repo, '.codex/config.toml'),
      },
    ])
  })

  it('confines a trusted project config to the project: a link outside is refused', async () => {
    const outside = await fixtureTree({ 'config.toml': 'project_doc_max_bytes = 4\n' })
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'x'.repeat(40),
      '.codex/config.toml': { link: join(outside, 'config.toml') },
    })
    const home = await fixtureTree({ '.codex/config.toml': trusted(repo) })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'codex' })
    expect(found.files.map((f) => [f.path, f.truncated])).toEqual([[join(repo, 'AGENTS.md'), false]])
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['harness-config', join(repo, '.codex/config.toml')],
    ])
    expect(found.diagnostics[0]!.message).toMatch(
      /^\.codex\/config\.toml .*outside.*; its settings were ignored\.$/,
    )
  })

  it('keeps the cap of an earlier file when a later one sets it wrongly, and says nothing of keys left unset', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'x'.repeat(40),
      '.codex/config.toml': 'project_doc_max_bytes = "lots"\n',
    })
    const home = await fixtureTree({ '.codex/config.toml': trusted(repo, 'project_doc_max_bytes = 4\n') })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'codex' })
    expect(found.files.map((f) => [f.path, f.truncated])).toEqual([[join(repo, 'AGENTS.md'), true]])
    expect(configDiagnostics(found)).toEqual([
      {
        code: 'harness-config',
        severity: 'warning',
        message:
          '.codex/config.toml: project_doc_max_bytes: expected a whole number of bytes from 0 to 2147483647; the setting was ignored.',
        path: join(repo, '.codex/config.toml'),
      },
    ])
    const bare = await fixtureTree({ '.codex/config.toml': 'model = "o3"\n' })
    const none = await discoverInstructions({ cwd: repo, home: bare, mode: 'codex' })
    expect(configDiagnostics(none).map((d) => d.severity)).toEqual(['info'])
  })

  it('lets the maxBytes option win over project_doc_max_bytes', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'x'.repeat(40) })
    const home = await fixtureTree({ '.codex/config.toml': 'project_doc_max_bytes = 4\n' })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'codex', maxBytes: 1000 })
    expect(found.files.map((f) => [f.path, f.truncated])).toEqual([[join(repo, 'AGENTS.md'), false]])
  })
})

describe('gemini settings.json files', () => {
  it('reads ~/.gemini/settings.json (with comments) alone', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'GEMINI.md': 'g\n', 'AGENTS.md': 'a\n' })
    const home = await fixtureTree({
      '.gemini/settings.json': '{\n  // mine\n  "context": { "fileName": ["AGENTS.md"], },\n}\n',
    })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'gemini' })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md'), join(repo, 'GEMINI.md')])
    expect(found.diagnostics).toEqual([])
  })

  it('keeps the home setting when the workspace sets it wrongly', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'GEMINI.md': 'g\n',
      'AGENTS.md': 'a\n',
      '.gemini/settings.json': '{ "context": { "fileName": "../AGENTS.md" } }',
    })
    const home = await fixtureTree({ '.gemini/settings.json': '{ "context": { "fileName": "AGENTS.md" } }' })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'gemini' })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md'), join(repo, 'GEMINI.md')])
    expect(found.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['harness-config', join(repo, '.gemini/settings.json')],
    ])
  })

  it('reads the settings once when the working directory is the home directory', async () => {
    const home = await fixtureTree({
      'GEMINI.md': 'g\n',
      '.gemini/settings.json': '{ "context": { "importFormat": "nested" } }',
    })
    const found = await discoverInstructions({ cwd: home, home, mode: 'gemini', fsRoot: home })
    expect(found.diagnostics.map((d) => d.message)).toEqual([
      '.gemini/settings.json: context.importFormat: expected one of tree, flat; the setting was ignored.',
    ])
  })
})

describe('opencode config files', () => {
  it('reads config.json, opencode.json and opencode.jsonc in ~/.config/opencode (comments allowed), in that order', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'agents\n' })
    const home = await fixtureTree({
      '.config/opencode/config.json': '{ "instructions": ["~/a.md"] }',
      '.config/opencode/opencode.jsonc': '{\n  // mine\n  "instructions": ["~/b.md",],\n}',
      'a.md': 'a\n',
      'b.md': 'b\n',
    })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'opencode' })
    expect(found.files.map((f) => f.path)).toEqual([
      join(repo, 'AGENTS.md'),
      join(home, 'a.md'),
      join(home, 'b.md'),
    ])
    expect(found.diagnostics).toEqual([])
  })

  it('walks project files from the git root only, and outside a repository from fsRoot', async () => {
    const outer = await fixtureTree({
      'opencode.json': '{ "instructions": ["above.md"] }',
      'above.md': 'above\n',
      'repo/.git': { dir: true },
      'repo/AGENTS.md': 'agents\n',
      'repo/opencode.json': '{ "instructions": ["team.md"] }',
      'repo/team.md': 'team\n',
      'plain/pkg/AGENTS.md': 'plain agents\n',
    })
    const home = await emptyHome()
    const repo = join(outer, 'repo')
    const found = await discoverInstructions({ cwd: repo, home, mode: 'opencode' })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md'), join(repo, 'team.md')])
    expect(found.diagnostics).toEqual([])
    const pkg = join(outer, 'plain/pkg')
    const plain = await discoverInstructions({
      cwd: pkg,
      home,
      mode: 'opencode',
      fsRoot: join(outer, 'plain'),
    })
    expect(plain.files.map((f) => f.path)).toEqual([join(pkg, 'AGENTS.md')])
    expect(plain.diagnostics).toEqual([])
  })

  it('passes over a file without instructions and one with a bad value, keeping the others', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'agents\n',
      'opencode.jsonc': '{ "instructions": "team.md" }',
      'opencode.json': '{ "instructions": ["team.md"] }',
      'team.md': 'team\n',
    })
    const home = await fixtureTree({ '.config/opencode/opencode.json': '{ "model": "x" }' })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'opencode' })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md'), join(repo, 'team.md')])
    expect(found.diagnostics.map((d) => d.message)).toEqual([
      'opencode.jsonc: instructions: expected a list of paths or globs; the setting was ignored.',
    ])
  })

  it('keeps the first source of an entry listed twice: the home file may reach the home directory', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'agents\n',
      'opencode.json': '{ "instructions": ["~/mine.md"] }',
    })
    const home = await fixtureTree({
      '.config/opencode/opencode.json': '{ "instructions": ["~/mine.md"] }',
      'mine.md': 'mine\n',
    })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'opencode' })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md'), join(home, 'mine.md')])
    expect(found.diagnostics).toEqual([])
  })

  it('lets --harness-config instructions replace what the files list; the flag may reach the home directory', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'agents\n',
      'opencode.json': '{ "instructions": ["listed.md"] }',
      'listed.md': 'listed\n',
      'flagged.md': 'flagged\n',
    })
    const home = await fixtureTree({ 'mine.md': 'mine\n' })
    const options = {
      cwd: repo,
      home,
      mode: 'opencode' as const,
      harnessConfig: ['instructions=flagged.md,~/mine.md'],
    }
    const found = await discoverInstructions(options)
    expect(found.files.map((f) => f.path)).toEqual([
      join(repo, 'AGENTS.md'),
      join(repo, 'flagged.md'),
      join(home, 'mine.md'),
    ])
    expect(found.diagnostics).toEqual([])
    const why = await explainInstructions({ ...options, file: 'flagged.md' })
    expect(why.reason).toContain('--harness-config instructions')
  })
})
