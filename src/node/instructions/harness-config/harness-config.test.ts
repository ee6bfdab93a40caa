import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import type { InstructionDiscovery } from '../discovery-results.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

afterAll(removeFixtures)

const SECRET = 'sk-live-0123456789abcdef'

function messages(found: InstructionDiscovery): string {
  return found.diagnostics.map((d) => d.message).join('\n')
}

describe('codex configuration', () => {
  it('takes project_doc_max_bytes and project_doc_fallback_filenames from config.toml; a flag wins', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'x'.repeat(40),
      'pkg/TEAM.md': 'team notes\n',
    })
    const home = await fixtureTree({
      '.codex/config.toml':
        '# mine\nproject_doc_max_bytes = 20\nproject_doc_fallback_filenames = ["TEAM.md"]\n',
    })
    const cwd = join(repo, 'pkg')
    const found = await discoverInstructions({ cwd, home, mode: 'codex' })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
    expect(found.files[0]!.truncated).toBe(true)
    const why = await explainInstructions({ cwd, home, mode: 'codex', file: join(repo, 'AGENTS.md') })
    expect(why.reason).toContain('set by project_doc_max_bytes in ~/.codex/config.toml')
    const flagged = await discoverInstructions({
      cwd,
      home,
      mode: 'codex',
      harnessConfig: ['project_doc_max_bytes=65536'],
    })
    expect(flagged.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md'), join(cwd, 'TEAM.md')])
    const team = await explainInstructions({
      cwd,
      home,
      mode: 'codex',
      harnessConfig: ['project_doc_max_bytes=65536'],
      file: join(cwd, 'TEAM.md'),
    })
    expect(team.reason).toContain('decided by project_doc_fallback_filenames in ~/.codex/config.toml')
    const capped = await explainInstructions({
      cwd,
      home,
      mode: 'codex',
      harnessConfig: ['project_doc_max_bytes=10'],
      file: join(repo, 'AGENTS.md'),
    })
    expect(capped.reason).toContain('set by --harness-config project_doc_max_bytes')
  })

  it('reads CODEX_HOME for the global file and config, and a project .codex/config.toml only once trusted', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root instructions\n',
      '.codex/config.toml': 'project_doc_max_bytes = 4\n',
    })
    const codexHome = await fixtureTree({ 'AGENTS.md': 'from CODEX_HOME\n', 'config.toml': '' })
    const home = await emptyHome()
    const untrusted = await discoverInstructions({
      cwd: repo,
      home,
      mode: 'codex',
      env: { CODEX_HOME: codexHome },
    })
    expect(untrusted.files.map((f) => [f.path, f.truncated])).toEqual([
      [join(codexHome, 'AGENTS.md'), false],
      [join(repo, 'AGENTS.md'), false],
    ])
    expect(messages(untrusted)).toContain('only once the project is trusted')
    const trusted = await fixtureTree({
      'config.toml': `[projects."${repo}"]\ntrust_level = "trusted"\n`,
    })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'codex', env: { CODEX_HOME: trusted } })
    expect(found.files.map((f) => [f.path, f.truncated])).toEqual([[join(repo, 'AGENTS.md'), true]])
    expect(found.harness.parts[0]!.text).toContain('<INSTRUCTIONS>\nroot\n</INSTRUCTIONS>')
    const why = await explainInstructions({
      cwd: repo,
      home,
      mode: 'codex',
      env: { CODEX_HOME: trusted },
      file: join(repo, 'AGENTS.md'),
    })
    expect(why.reason).toContain('set by project_doc_max_bytes in .codex/config.toml')
  })
})

describe('gemini configuration', () => {
  it('reads context.fileName (a string or a list) from settings.json with comments; the workspace wins', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'GEMINI.md': 'gemini\n',
      'AGENTS.md': 'agents\n',
      'TEAM.md': 'team\n',
      '.gemini/settings.json': '{\n  // the workspace\n  "context": { "fileName": ["TEAM.md"], },\n}\n',
    })
    const home = await fixtureTree({ '.gemini/settings.json': '{ "context": { "fileName": "AGENTS.md" } }' })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'gemini' })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'GEMINI.md'), join(repo, 'TEAM.md')])
    const why = await explainInstructions({ cwd: repo, home, mode: 'gemini', file: join(repo, 'AGENTS.md') })
    expect(why.status).toBe('skipped')
    const user = await discoverInstructions({ cwd: repo, home, mode: 'gemini', harnessConfigFiles: false })
    expect(user.files.map((f) => f.path)).toEqual([join(repo, 'GEMINI.md')])
    const flagged = await discoverInstructions({
      cwd: repo,
      home,
      mode: 'gemini',
      harnessConfig: ['context.fileName=AGENTS.md,TEAM.md'],
    })
    expect(flagged.files.map((f) => f.path)).toEqual([
      join(repo, 'AGENTS.md'),
      join(repo, 'GEMINI.md'),
      join(repo, 'TEAM.md'),
    ])
  })

  it('marks the view inexact for the flat import format', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'GEMINI.md': 'g\n' })
    const found = await discoverInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'gemini',
      harnessConfig: ['context.importFormat=flat'],
    })
    expect(found.harness.parts.map((p) => p.exact)).toEqual([false])
  })
})

describe('opencode configuration', () => {
  it('loads the files of instructions (paths and globs) after its own, and explain names the config', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'agents\n',
      'docs/rules/a.md': 'rule a\n',
      'docs/rules/b.md': 'rule b\n',
      'docs/rules/.hidden.md': 'hidden\n',
      'opencode.jsonc':
        '{ /* team */ "instructions": ["docs/rules/*.md", "AGENTS.md", "https://example.com/x.md"] }',
    })
    const home = await fixtureTree({
      '.config/opencode/opencode.json': '{"instructions": ["~/mine.md"]}',
      'mine.md': 'mine\n',
    })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'opencode' })
    expect(found.files.map((f) => f.path)).toEqual([
      join(repo, 'AGENTS.md'),
      join(home, 'mine.md'),
      join(repo, 'docs/rules/a.md'),
      join(repo, 'docs/rules/b.md'),
    ])
    expect(found.harness.parts[0]!.text).toContain(
      `Instructions from: ${join(repo, 'docs/rules/a.md')}\nrule a\n`,
    )
    expect(messages(found)).toContain('is a URL')
    const why = await explainInstructions({
      cwd: repo,
      home,
      mode: 'opencode',
      file: join(repo, 'docs/rules/b.md'),
    })
    expect(why.reason).toContain('decided by instructions in opencode.jsonc')
  })

  it('keeps a project config from reaching outside the project', async () => {
    const outside = await fixtureTree({ 'secret.md': SECRET })
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'agents\n',
      'opencode.json': JSON.stringify({ instructions: [join(outside, '*.md'), '~/x.md', 'link.md'] }),
      'link.md': { link: join(outside, 'secret.md') },
    })
    const home = await fixtureTree({ 'x.md': SECRET })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'opencode' })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
    expect(found.harness.parts[0]!.text).not.toContain(SECRET)
    // Each refusal names the entry's source and says nothing was read; never the secret.
    const pointsOut =
      'an instructions entry of instructions in opencode.json points outside the project; it was not read.'
    expect(found.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['outside-root', pointsOut],
      ['outside-root', pointsOut],
      ['unreadable', `link.md (from instructions in opencode.json) lies outside ${repo}; it was skipped.`],
    ])
    expect(
      await explainInstructions({ cwd: repo, home, mode: 'opencode', file: join(repo, 'link.md') }),
    ).toMatchObject({
      status: 'skipped',
      code: 'outside-root',
      reason: `listed by instructions in opencode.json, but it lies outside ${repo}`,
    })
  })
})

describe('claude configuration', () => {
  const settings = (value: string, key = 'instructionFiles') =>
    JSON.stringify({ pluginConfigs: { 'cc-plugin-agents-md': { options: { [key]: value } } } })

  it('follows instructionFiles: beside CLAUDE.md, never, or no project files at all', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'CLAUDE.md': 'claude\n',
      'AGENTS.md': 'agents\n',
    })
    const run = async (value: string, key?: string) => {
      const home = await fixtureTree({
        '.claude/settings.json': settings(value, key),
        '.claude/CLAUDE.md': 'g\n',
      })
      return discoverInstructions({ cwd: repo, home, mode: 'claude', fsRoot: repo })
    }
    const both = await run('claude-md-and-agents-md')
    expect(both.files.map((f) => f.path).slice(1)).toEqual([join(repo, 'CLAUDE.md'), join(repo, 'AGENTS.md')])
    expect((await run('claude-md')).files.map((f) => f.path).slice(1)).toEqual([join(repo, 'CLAUDE.md')])
    expect((await run('managed-only')).files).toEqual([])
    // The older projectInstructions words still count while instructionFiles is unset.
    const legacy = await run('both', 'projectInstructions')
    expect(legacy.files.map((f) => f.path).slice(1)).toEqual([
      join(repo, 'CLAUDE.md'),
      join(repo, 'AGENTS.md'),
    ])
    const bad = await run('always')
    expect(bad.files.map((f) => f.path).slice(1)).toEqual([join(repo, 'CLAUDE.md')])
    expect(messages(bad)).toContain('instructionFiles: expected one of claude-md')
    expect(messages(bad)).not.toContain('always')
  })

  it('says why an import outside cwd was dropped, naming a setting that refused it, and a repeat through a link', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'CLAUDE.md': '@AGENTS.md\n',
      'AGENTS.md': 'the real instructions\n',
      'crates/x/CLAUDE.md': 'x\n@notes.md\n@alias.md\n',
      'crates/x/notes.md': 'notes\n',
      'crates/x/alias.md': { link: 'notes.md' },
    })
    const cwd = join(repo, 'crates/x')
    const base = { cwd, mode: 'claude' as const, fsRoot: repo }
    const home = await emptyHome()
    const refusedHome = await fixtureTree({
      '.claude.json': JSON.stringify({
        projects: { [repo]: { hasClaudeMdExternalIncludesApproved: false } },
      }),
    })
    const found = await discoverInstructions({ ...base, home })
    expect(found.diagnostics).toEqual([
      {
        code: 'import-outside-cwd',
        severity: 'warning',
        message: `CLAUDE.md:1 imports AGENTS.md, outside ${cwd}; Claude Code drops such an import unless approved (hasClaudeMdExternalIncludesApproved; --harness-config hasClaudeMdExternalIncludesApproved=true).`,
        path: join(repo, 'AGENTS.md'),
        site: { path: join(repo, 'CLAUDE.md'), line: 1, column: 1 },
      },
    ])
    const need = `imported by CLAUDE.md but outside ${cwd}, and such imports need approval`
    const why = async (h: string, file: string) =>
      (await explainInstructions({ ...base, home: h, file })).reason
    expect(await why(home, join(repo, 'AGENTS.md'))).toBe(need)
    expect(await why(refusedHome, join(repo, 'AGENTS.md'))).toBe(
      `${need} (projects["${repo}"].hasClaudeMdExternalIncludesApproved in ~/.claude.json is false)`,
    )
    // The same file imported again under another name is loaded once.
    expect(await explainInstructions({ ...base, home, file: 'alias.md' })).toMatchObject({
      status: 'skipped',
      code: 'duplicate',
      reason: 'already loaded earlier; its import by crates/x/CLAUDE.md adds nothing',
    })
  })

  it('reads an import outside cwd once approved (the ruff layout from a subdirectory)', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'CLAUDE.md': '@AGENTS.md\n',
      'AGENTS.md': 'the real instructions\n',
      'crates/x/lib.rs': '',
    })
    const cwd = join(repo, 'crates/x')
    const home = await emptyHome()
    const dropped = await discoverInstructions({ cwd, home, mode: 'claude', fsRoot: repo })
    expect(dropped.files.map((f) => f.path)).toEqual([join(repo, 'CLAUDE.md')])
    expect(messages(dropped)).toContain('hasClaudeMdExternalIncludesApproved')
    const approvedHome = await fixtureTree({
      '.claude.json': JSON.stringify({ projects: { [repo]: { hasClaudeMdExternalIncludesApproved: true } } }),
    })
    const approved = await discoverInstructions({ cwd, home: approvedHome, mode: 'claude', fsRoot: repo })
    expect(approved.files.map((f) => f.path)).toEqual([join(repo, 'CLAUDE.md'), join(repo, 'AGENTS.md')])
    const why = await explainInstructions({
      cwd,
      home: approvedHome,
      mode: 'claude',
      fsRoot: repo,
      file: join(repo, 'AGENTS.md'),
    })
    expect(why.reason).toContain('decided by hasClaudeMdExternalIncludesApproved')
    const flag = await discoverInstructions({
      cwd,
      home,
      mode: 'claude',
      fsRoot: repo,
      harnessConfig: ['hasClaudeMdExternalIncludesApproved=true'],
    })
    expect(flag.files).toHaveLength(2)
  })
})

// pi 0.73.1: no project trust yet, and the prompt as one text with headings.
describe('pi prompt files', () => {
  it('puts SYSTEM.md in place of the base prompt and APPEND_SYSTEM.md after it, before the context files', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'agents\n',
      '.pi/SYSTEM.md': 'You are mine.\n',
    })
    const home = await fixtureTree({
      '.pi/agent/APPEND_SYSTEM.md': 'Also this.\n',
      '.pi/agent/SYSTEM.md': 'lost\n',
    })
    const found = await discoverInstructions({
      cwd: repo,
      home,
      mode: 'pi',
      harnessVersion: '0.73.1',
      fsRoot: repo,
    })
    const [part] = found.harness.parts
    expect(part!.text).toBe(
      `You are mine.\n\n\nAlso this.\n\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n## ${join(repo, 'AGENTS.md')}\n\nagents\n\n\n`,
    )
    expect(part!.files).toEqual([
      join(repo, '.pi/SYSTEM.md'),
      join(home, '.pi/agent/APPEND_SYSTEM.md'),
      join(repo, 'AGENTS.md'),
    ])
    const lost = await explainInstructions({
      cwd: repo,
      home,
      mode: 'pi',
      harnessVersion: '0.73.1',
      fsRoot: repo,
      file: join(home, '.pi/agent/SYSTEM.md'),
    })
    expect(lost).toMatchObject({
      code: 'name-lost',
      reason: ".pi/SYSTEM.md is used instead: pi reads the project's SYSTEM.md first",
    })
    const why = async (file: string) =>
      (
        await explainInstructions({
          cwd: repo,
          home,
          mode: 'pi',
          harnessVersion: '0.73.1',
          fsRoot: repo,
          file,
        })
      ).reason
    expect(await why(join(repo, '.pi/SYSTEM.md'))).toBe("it replaces pi's base prompt (SYSTEM.md in .pi)")
    expect(await why(join(home, '.pi/agent/APPEND_SYSTEM.md'))).toBe(
      "it is appended to pi's base prompt (APPEND_SYSTEM.md in ~/.pi/agent)",
    )
  })
})

describe('hostile project configuration', () => {
  it('refuses a link outside the root, a FIFO, a huge file and a malformed one, naming the file, never the value', async () => {
    const outside = await fixtureTree({
      'settings.json': JSON.stringify({ context: { fileName: 'AGENTS.md' }, key: SECRET }),
    })
    const cases: [string, Record<string, string | { link: string }>, RegExp][] = [
      [
        'link',
        { '.gemini/settings.json': { link: join(outside, 'settings.json') } },
        /leads outside the project/,
      ],
      [
        'huge',
        { '.gemini/settings.json': `{"key": "${SECRET}", "pad": "${'x'.repeat(300 * 1024)}"}` },
        /is larger than 256 KiB/,
      ],
      [
        'malformed',
        { '.gemini/settings.json': `{"context": {"fileName": "AGENTS.md"}, "key": "${SECRET}" oops}` },
        /is not valid JSON \(with comments\) \(line 1, column \d+\)/,
      ],
    ]
    for (const [name, files, message] of cases) {
      const repo = await fixtureTree({
        '.git': { dir: true },
        'GEMINI.md': 'g\n',
        'AGENTS.md': 'a\n',
        ...files,
      })
      const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode: 'gemini' })
      expect(
        found.files.map((f) => f.path),
        name,
      ).toEqual([join(repo, 'GEMINI.md')])
      expect(messages(found), name).toMatch(message)
      expect(messages(found), name).toContain('.gemini/settings.json')
      expect(JSON.stringify(found), name).not.toContain(SECRET)
    }
    const repo = await fixtureTree({ '.git': { dir: true }, 'GEMINI.md': 'g\n', '.gemini': { dir: true } })
    execFileSync('mkfifo', [join(repo, '.gemini/settings.json')])
    const fifo = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode: 'gemini' })
    expect(messages(fifo)).toMatch(/not a regular file/)
  })

  it('reports a TOML error by position only', async () => {
    const home = await fixtureTree({
      '.codex/config.toml': `api_key = "${SECRET}"\nproject_doc_max_bytes = = 3\n`,
    })
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'a\n' })
    const found = await discoverInstructions({ cwd: repo, home, mode: 'codex' })
    expect(messages(found)).toMatch(/config\.toml is not valid TOML \(line 2, column \d+\)/)
    expect(JSON.stringify(found)).not.toContain(SECRET)
    const wrong = await fixtureTree({ '.codex/config.toml': 'project_doc_max_bytes = "lots"\n' })
    const typed = await discoverInstructions({ cwd: repo, home: wrong, mode: 'codex' })
    expect(messages(typed)).toContain('project_doc_max_bytes: expected a whole number of bytes')
    expect(messages(typed)).not.toContain('lots')
  })
})
