import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { discoverInstructions } from '../discover.js'
import { explainInstructions } from '../explain.js'
import { emptyHome, fixtureTree, removeFixtures } from '../fixtures.test-helper.js'

// Claude Code's own settings: the agents-md plugin's options in
// ~/.claude/settings.json (under any of the plugin's names, the older
// projectInstructions while instructionFiles is unset or at its default)
// and the per-project approval in ~/.claude.json; and how a settings file
// that cannot be read or parsed is reported.

afterAll(removeFixtures)

const json = (value: unknown) => JSON.stringify(value)
const plugin = (name: string, options: Record<string, unknown>) =>
  json({ pluginConfigs: { [name]: { options } } })

/** A repository with AGENTS.md only, so the default (`claude-md-or-agents-md`) loads it. */
async function agentsOnly(settings: string) {
  const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'agents\n' })
  const home = await fixtureTree({ '.claude/settings.json': settings })
  const options = { cwd: repo, home, mode: 'claude' as const, fsRoot: repo }
  const found = await discoverInstructions(options)
  const why = await explainInstructions({ ...options, file: 'AGENTS.md' })
  return { repo, found, why }
}

/** A repository with both CLAUDE.md and AGENTS.md. */
async function both(settings: string) {
  const repo = await fixtureTree({ '.git': { dir: true }, 'CLAUDE.md': 'claude\n', 'AGENTS.md': 'agents\n' })
  const home = await fixtureTree({ '.claude/settings.json': settings })
  const options = { cwd: repo, home, mode: 'claude' as const, fsRoot: repo }
  const found = await discoverInstructions(options)
  const why = await explainInstructions({ ...options, file: 'AGENTS.md' })
  return { repo, paths: found.files.map((f) => f.path), found, why }
}

describe('the agents-md plugin options in ~/.claude/settings.json', () => {
  it('finds the plugin as agents-md and agents-md@<marketplace> too, naming the key that set it', async () => {
    for (const name of ['agents-md', 'agents-md@market', 'cc-plugin-agents-md']) {
      const { found, why } = await agentsOnly(plugin(name, { instructionFiles: 'claude-md-or-agents-md' }))
      expect(
        found.files.map((f) => f.path),
        name,
      ).toHaveLength(1)
      expect(why.reason, name).toContain(
        `instructionFiles claude-md-or-agents-md (pluginConfigs.${name}.options.instructionFiles in ~/.claude/settings.json)`,
      )
    }
  })

  it("ignores other plugins' options, whatever their names, and settings without plugins", async () => {
    const others = json({
      pluginConfigs: {
        other: { options: { instructionFiles: 'managed-only' } },
        undefined: { options: { instructionFiles: 'managed-only' } },
        'agents-md@market': { options: { instructionFiles: 'claude-md' } },
      },
    })
    const { repo, paths } = await both(others)
    expect(paths).toEqual([join(repo, 'CLAUDE.md')])
    for (const settings of [json({}), json({ pluginConfigs: null }), json({ pluginConfigs: 'agents-md' })]) {
      const { repo, found } = await agentsOnly(settings)
      expect(
        found.files.map((f) => f.path),
        settings,
      ).toEqual([join(repo, 'AGENTS.md')])
      expect(found.diagnostics, settings).toEqual([])
    }
    const stranger = json({ pluginConfigs: { undefined: { options: { instructionFiles: 'managed-only' } } } })
    expect((await agentsOnly(stranger)).found.files).toHaveLength(1)
  })

  it('honours projectInstructions while instructionFiles is unset or at its default, and names it', async () => {
    const atDefault = await both(
      plugin('agents-md', { projectInstructions: 'both', instructionFiles: 'claude-md-or-agents-md' }),
    )
    expect(atDefault.paths).toEqual([join(atDefault.repo, 'CLAUDE.md'), join(atDefault.repo, 'AGENTS.md')])
    expect(atDefault.why.reason).toContain(
      'instructionFiles claude-md-and-agents-md (pluginConfigs.agents-md.options.projectInstructions in ~/.claude/settings.json)',
    )
    const chosen = await both(
      plugin('agents-md', { projectInstructions: 'both', instructionFiles: 'claude-md' }),
    )
    expect(chosen.paths).toEqual([join(chosen.repo, 'CLAUDE.md')])
    expect(chosen.why.reason).toBe(
      'Claude Code does not read AGENTS.md with instructionFiles claude-md (pluginConfigs.agents-md.options.instructionFiles in ~/.claude/settings.json)',
    )
  })

  it('keeps the default when the plugin sets nothing or a word it does not know', async () => {
    const unset = await agentsOnly(plugin('agents-md', {}))
    expect(unset.found.files).toHaveLength(1)
    expect(unset.found.diagnostics).toEqual([])
    const bad = await agentsOnly(plugin('agents-md', { instructionFiles: 'always' }))
    expect(bad.found.files.map((f) => f.path)).toEqual([join(bad.repo, 'AGENTS.md')])
    expect(bad.found.diagnostics).toEqual([
      {
        code: 'harness-config',
        severity: 'warning',
        message:
          '~/.claude/settings.json: instructionFiles: expected one of claude-md, claude-md-or-agents-md, claude-md-and-agents-md, managed-only; the setting was ignored.',
        path: expect.stringMatching(/\.claude\/settings\.json$/),
      },
    ])
  })
})

describe('the approval in ~/.claude.json', () => {
  async function outsideCwd(state: unknown) {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'CLAUDE.md': '@AGENTS.md\n',
      'AGENTS.md': 'agents\n',
      'crates/x/lib.rs': '',
    })
    const home = await fixtureTree({
      '.claude.json': json(typeof state === 'function' ? state(repo) : state),
    })
    const options = { cwd: join(repo, 'crates/x'), home, mode: 'claude' as const, fsRoot: repo }
    const found = await discoverInstructions(options)
    const why = await explainInstructions({ ...options, file: join(repo, 'AGENTS.md') })
    return { repo, found, why }
  }

  it('says nothing when the project has no entry, and ignores a value that is not true or false', async () => {
    const { found } = await outsideCwd({ projects: {} })
    expect(found.diagnostics.map((d) => d.code)).toEqual(['import-outside-cwd'])
    const bad = await outsideCwd((repo: string) => ({
      projects: { [repo]: { hasClaudeMdExternalIncludesApproved: 'yes' } },
    }))
    expect(bad.found.diagnostics.map((d) => [d.code, d.message])).toEqual([
      [
        'harness-config',
        '~/.claude.json: hasClaudeMdExternalIncludesApproved: expected true or false; the setting was ignored.',
      ],
      ['import-outside-cwd', expect.stringContaining('unless approved')],
    ])
    expect(bad.why.reason).toBe(
      `imported by CLAUDE.md but outside ${join(bad.repo, 'crates/x')}, and such imports need approval`,
    )
  })
})

describe('a settings file that cannot be used', () => {
  it('reports strict JSON errors (a trailing comma) by position, as a warning with a site', async () => {
    const text = '{"pluginConfigs": {},}'
    const { repo, found } = await agentsOnly(text)
    const path = expect.stringMatching(/\.claude\/settings\.json$/)
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
    expect(found.diagnostics).toEqual([
      {
        code: 'harness-config',
        severity: 'warning',
        message:
          '~/.claude/settings.json is not valid JSON (line 1, column 22); its settings were ignored. Fix the file.',
        path,
        site: { path, line: 1, column: 22 },
      },
    ])
  })

  it('drops a leading byte-order mark only', async () => {
    const setting = '{"agents-md":{"options":{"instructionFiles":"claude-md-and-agents-md"}}}'
    const leading = await both(`\uFEFF{"pluginConfigs":${setting}}`)
    expect(leading.paths).toEqual([join(leading.repo, 'CLAUDE.md'), join(leading.repo, 'AGENTS.md')])
    expect(leading.found.diagnostics).toEqual([])
    const inside = await both(`{"pluginConfigs":\uFEFF${setting}}`)
    expect(inside.paths).toEqual([join(inside.repo, 'CLAUDE.md')])
    expect(inside.found.diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(/^~\/\.claude\/settings\.json is not valid JSON \(line 1, column \d+\)/),
    ])
  })

  it('refuses a file over the cap, naming it', async () => {
    const { found } = await agentsOnly(json({ pad: 'x'.repeat(300 * 1024) }))
    expect(found.diagnostics.map((d) => [d.code, d.message])).toEqual([
      [
        'harness-config',
        expect.stringMatching(
          /^~\/\.claude\/settings\.json is larger than 256 KiB.*; its settings were ignored\.$/,
        ),
      ],
    ])
  })
})

describe('no settings at all', () => {
  it('loads by the defaults without a word', async () => {
    const repo = await fixtureTree({ '.git': { dir: true }, 'AGENTS.md': 'agents\n' })
    const found = await discoverInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'claude',
      fsRoot: repo,
    })
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'AGENTS.md')])
    expect(found.diagnostics).toEqual([])
  })
})
