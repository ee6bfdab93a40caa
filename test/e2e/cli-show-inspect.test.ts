import { execFileSync, spawnSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  bin,
  cli,
  ESC,
  env,
  fast,
  json,
  makeRepo,
  oneErrorLine,
  repoRoot,
  useSandbox,
} from './cli.test-helper.js'

// `show`, `inspect` and `vars` of the built CLI on a repository with nested
// instruction files, an import and rules; and on the sample project.
useSandbox()

describe.concurrent('show, inspect and vars on a repository', () => {
  let repo: string
  let sub: string
  beforeAll(async () => {
    repo = await makeRepo('show')
    sub = join(repo, 'sub')
  })

  it('show prints the compiled text byte for byte into a pipe, with nested instructions and the import', async () => {
    const [text, compiled] = await Promise.all([
      cli(['show', ...fast], { cwd: sub }),
      cli(['show', '--format', 'json', ...fast], { cwd: sub }),
    ])
    expect(text.code).toBe(0)
    expect(compiled.code).toBe(0)
    const c = json(compiled)
    expect(text.stdout).toBe(c.text)
    expect(c.hash).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(c.sections.map((s: { name: string }) => s.name)).toEqual(['template', 'rule:always'])
    expect(text.stdout).toContain('Run the tests before you finish.')
    expect(text.stdout).toContain('Notes: keep functions short.')
    expect(text.stdout).toContain('This package parses input.')
    expect(text.stdout).not.toContain('Not for sub.')
    expect(text.stdout).toContain(`Working directory: ${sub}`)
  })

  it('show adds the rules whose paths match --path', async () => {
    const r = await cli(['show', '--format', 'json', '--path', 'a.test.ts', ...fast], { cwd: sub })
    expect(json(r).sections.map((s: { name: string }) => s.name)).toEqual([
      'template',
      'rule:always',
      'rule:tests',
    ])
  })

  it('show gives each provider its request shape', async () => {
    const [compiled, anthropic, openai, gemini] = await Promise.all(
      ['json', 'anthropic', 'openai', 'gemini'].map((f) =>
        cli(['show', '--format', f, ...fast], { cwd: sub }),
      ),
    )
    const text = json(compiled!).text
    const a = json(anthropic!)
    expect(a.system.map((b: { text: string }) => b.text).join('')).toBe(text)
    expect(json(openai!).message).toEqual({ role: 'system', content: text })
    expect(json(gemini!).systemInstruction.parts[0].text).toBe(text)
  })

  it('inspect draws a table with bars, the instruction files and the cache plan, without colours off a terminal', async () => {
    const r = await cli(['inspect', '--path', 'a.test.ts', ...fast], { cwd: sub })
    expect(r.code).toBe(0)
    expect(r.stdout).not.toContain(ESC)
    for (const expected of [
      'Sections',
      'rule:tests',
      'Instruction files',
      'sub/AGENTS.md',
      'docs/notes.md',
      'Cache (no provider or model named',
    ]) {
      expect(r.stdout).toContain(expected)
    }
    // Nothing named a provider: no provider's name, no provider's minimum (issue 31, finding 6).
    expect(r.stdout).not.toMatch(/anthropic|4 096/i)
    expect(r.stdout).toMatch(/\ntokens +estimate\n/)
    expect(r.stdout).toMatch(/template .*█/)
    // Imported files get a token count like the files that import them.
    expect(r.stdout).toMatch(/└ docs\/notes\.md \(imported\) +\d+ +\d+ +whole/)
  })

  it('inspect names the provider a harness mode implies, and says where it came from in --json', async () => {
    const [text, data] = await Promise.all([
      cli(['inspect', '--mode', 'claude', ...fast], { cwd: sub }),
      cli(['inspect', '--json', ...fast], { cwd: sub }),
    ])
    expect(text.stdout).toContain('Cache (anthropic, minimum')
    expect(json(data).cache.providerFrom).toBe('none')
  })

  it('inspect --json gives the same as data', async () => {
    const r = await cli(['inspect', '--json', '--provider', 'openai', ...fast], { cwd: sub })
    expect(r.code).toBe(0)
    const data = json(r)
    expect(data.root).toBe(repo)
    expect(data.sections[0]).toMatchObject({
      name: 'template',
      order: 0,
      stability: 'session',
      source: 'presets/default/project-template.md',
    })
    const share = data.sections.reduce((n: number, s: { share: number }) => n + s.share, 0)
    expect(share).toBeGreaterThan(0.9)
    expect(data.totals.tokens).toBe(
      data.sections.reduce((n: number, s: { tokens: number }) => n + s.tokens, 0) + data.sections.length - 1,
    )
    expect(data.instructions.files.map((f: { shown: string }) => f.shown)).toEqual([
      'AGENTS.md',
      'sub/AGENTS.md',
    ])
    const [top] = data.instructions.files
    expect(top.imports[0]).toMatchObject({ shown: 'docs/notes.md', truncated: false })
    // An inlined import is counted too: its own text, which its importer's count includes.
    expect(top.imports[0].tokens).toBeGreaterThan(0)
    expect(top.imports[0].tokens).toBeLessThan(top.tokens)
    expect(data.cache).toMatchObject({ provider: 'openai', minTokens: 1024, cacheableTokens: 0 })
    expect(data.rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'tests', applies: false, reason: 'no-match' }),
        expect.objectContaining({ id: 'always', applies: true, reason: 'always' }),
      ]),
    )
  })

  it('vars lists referenced variables with values and the catalog', async () => {
    const [data, text] = await Promise.all([
      cli(['vars', '--json', ...fast], { cwd: sub }),
      cli(['vars', ...fast], { cwd: sub }),
    ])
    const v = json(data)
    const cwd = v.referenced.find((x: { key: string }) => x.key === 'prompt:cwd')
    expect(cwd).toMatchObject({ value: sub, stability: 'session', known: true, sections: ['template'] })
    const instructions = v.referenced.find((x: { key: string }) => x.key === 'project:instructions')
    expect(instructions.value).toContain('This package parses input.')
    expect(v.catalog.map((i: { key: string }) => i.key)).toEqual(
      expect.arrayContaining(['system:date', 'git:branch', 'file:<path>']),
    )
    expect(text.stdout).toContain('prompt:cwd')
    expect(text.stdout).toMatch(/project:instructions +session +.*…/)
  })

  it('includes tool schemas from --tools in inspect and the provider shapes', async () => {
    const tools = join(repo, 'tools.json')
    await writeFile(
      tools,
      JSON.stringify([
        {
          name: 'read_file',
          description: 'Read a file',
          parameters: { type: 'object', properties: { path: { type: 'string' } } },
        },
        { name: 'grep', parameters: { type: 'object', properties: {} } },
      ]),
    )
    const [inspect, openai, bad] = await Promise.all([
      cli(['inspect', '--json', '--tools', tools, ...fast], { cwd: sub }),
      cli(['show', '--format', 'openai', '--tools', tools, ...fast], { cwd: sub }),
      cli(['show', '--tools', join(repo, 'AGENTS.md'), ...fast], { cwd: sub }),
    ])
    const data = json(inspect)
    expect(data.tools.map((t: { name: string }) => t.name)).toEqual(['grep', 'read_file'])
    expect(data.tools[1].tokens).toBeGreaterThan(0)
    expect(json(openai).tools[1]).toMatchObject({
      type: 'function',
      function: { name: 'read_file', description: 'Read a file' },
    })
    expect(bad.code).toBe(1)
    oneErrorLine(bad)
  })

  it('colours a terminal, and never with NO_COLOR or --no-color', async (context) => {
    const hasScript = spawnSync('script', ['--version']).status === 0
    context.skip(!hasScript, 'needs util-linux `script` to run the command on a terminal')
    const tty = (extra: Record<string, string>, flag = '') =>
      execFileSync(
        'script',
        ['-qec', `"${process.execPath}" "${bin}" inspect --tokenizer estimate ${flag}`, '/dev/null'],
        {
          cwd: sub,
          env: env(extra),
          encoding: 'utf8',
        },
      )
    expect(tty({})).toContain(ESC)
    expect(tty({ NO_COLOR: '1' })).not.toContain(ESC)
    expect(tty({}, '--no-color')).not.toContain(ESC)
  })
})

describe('the sample project', () => {
  it('is its own root: inspect shows its instruction files, not this repository’s', async () => {
    const r = await cli(
      ['inspect', '--cwd', 'examples/sample-project/packages/api', '--tokenizer', 'estimate'],
      { cwd: repoRoot },
    )
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`root      ${join(repoRoot, 'examples', 'sample-project')}`)
    // The detail of sysprompt's mode (the first screen above it names what every harness may read, the sibling package's file included).
    const detail = r.stdout.slice(r.stdout.indexOf('Instruction files'))
    expect(detail).toContain('packages/api/AGENTS.md')
    expect(detail).toContain('docs/conventions.md (imported)')
    expect(detail).not.toContain('packages/web/AGENTS.md')
    expect(r.stdout).toMatch(/answers +in/)
    expect(r.stderr).toBe('')
  })
})
