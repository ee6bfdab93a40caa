import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// End-to-end: the BUILT command line (`npm test` builds first), spawned on
// temporary repositories with real git and an empty home directory.
const repoRoot = join(import.meta.dirname, '..', '..')
const bin = join(repoRoot, 'dist', 'cli', 'main.js')
const ESC = '\u001b['

interface Result {
  code: number
  stdout: string
  stderr: string
}

let base: string
let home: string

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), ...extra }
}

/** Runs `sysprompt args…` in `cwd` and resolves with its exit code and output (never rejects). */
function cli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: options.cwd ?? base, env: options.env ?? env(), encoding: 'utf8', maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1
        resolve({ code, stdout, stderr })
      },
    )
  })
}

async function write(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, text)
}

/** A git repository with nested instruction files, an import and two rules. */
async function makeRepo(name: string): Promise<string> {
  const dir = join(base, name)
  await mkdir(dir, { recursive: true })
  execFileSync('git', ['init', '-q', dir])
  await write(join(dir, 'AGENTS.md'), '# Project\n\nRun the tests before you finish.\n\n@docs/notes.md\n')
  await write(join(dir, 'docs', 'notes.md'), 'Notes: keep functions short.\n')
  await write(join(dir, 'sub', 'AGENTS.md'), '# sub\n\nThis package parses input.\n')
  await write(join(dir, 'other', 'AGENTS.md'), '# other\n\nNot for sub.\n')
  await write(join(dir, 'sub', 'a.test.ts'), '// a test\n')
  await write(
    join(dir, '.sysprompt', 'rules', 'tests.md'),
    '---\npaths: ["**/*.test.ts"]\n---\nRun the test you touch.\n',
  )
  await write(join(dir, '.sysprompt', 'rules', 'always.md'), '---\ndescription: always\n---\nBe brief.\n')
  return dir
}

const json = (r: Result) => JSON.parse(r.stdout)
const oneErrorLine = (r: Result) => {
  const lines = r.stderr.trimEnd().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatch(/^sysprompt: .+; .+/)
}

beforeAll(async () => {
  expect(existsSync(bin), 'dist/cli/main.js is missing: run `npm run build` (npm test does)').toBe(true)
  base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-cli-')))
  home = join(base, 'home')
  await mkdir(join(home, '.config'), { recursive: true })
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

describe.concurrent('show, inspect and vars on a repository', () => {
  let repo: string
  let sub: string
  const fast = ['--tokenizer', 'estimate']
  beforeAll(async () => {
    repo = await makeRepo('show')
    sub = join(repo, 'sub')
  })

  it('show prints exactly the compiled text, with nested instructions and the import', async () => {
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
      'Cache (anthropic',
    ]) {
      expect(r.stdout).toContain(expected)
    }
    expect(r.stdout).toMatch(/template .*█/)
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
    expect(data.instructions.files[0].imports[0]).toMatchObject({ shown: 'docs/notes.md', truncated: false })
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

  it('explain says why a file or a rule is in or out', async () => {
    const [inFile, outFile, rule] = await Promise.all([
      cli(['explain', 'AGENTS.md', '--json'], { cwd: sub }),
      cli(['explain', '../other/AGENTS.md'], { cwd: sub }),
      cli(['explain', join(repo, '.sysprompt', 'rules', 'tests.md'), '--path', 'a.test.ts', '--json'], {
        cwd: sub,
      }),
    ])
    expect(json(inFile)).toMatchObject({
      kind: 'instructions',
      status: 'included',
      file: join(sub, 'AGENTS.md'),
    })
    expect(outFile.code).toBe(0)
    expect(outFile.stdout).toMatch(/^other\/AGENTS\.md: skipped: /)
    expect(json(rule)).toMatchObject({ kind: 'rule', id: 'tests', status: 'included', code: 'matched' })
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
    expect(r.stdout).toMatch(/0 errors, \d+ warnings?\n$/)
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

describe('check and diff', () => {
  let repo: string
  const fast = ['--tokenizer', 'estimate']
  beforeAll(async () => {
    repo = await makeRepo('check')
  })

  it('fails without a lock and says how to make one', async () => {
    const r = await cli(['check', ...fast], { cwd: repo })
    expect(r.code).toBe(1)
    oneErrorLine(r)
    expect(r.stderr).toContain('sysprompt check --update')
  })

  it('writes the lock, passes, then explains a changed section', async () => {
    const update = await cli(['check', '--update', ...fast], { cwd: repo })
    expect(update.code).toBe(0)
    const lock = JSON.parse(await readFile(join(repo, 'sysprompt.lock'), 'utf8'))
    expect(lock.tokenizer).toBe('estimate')
    expect(lock.sections.map((s: { name: string }) => s.name)).toEqual(['template', 'rule:always'])
    // The lock's tokenizer is used when none is given.
    expect((await cli(['check'], { cwd: repo })).code).toBe(0)

    await write(
      join(repo, '.sysprompt', 'rules', 'always.md'),
      '---\ndescription: always\n---\nBe very brief.\n',
    )
    const [check, checkJson, diff] = await Promise.all([
      cli(['check'], { cwd: repo }),
      cli(['check', '--json'], { cwd: repo }),
      cli(['diff', '--lock', '--json'], { cwd: repo }),
    ])
    expect(check.code).toBe(1)
    expect(check.stdout).toContain('section "rule:always" (from .sysprompt/rules/always.md) changed')
    expect(check.stderr).toContain('sysprompt check --update')
    expect(json(checkJson)).toMatchObject({
      ok: false,
      differences: [expect.objectContaining({ section: 'rule:always', kind: 'changed' })],
    })
    expect(diff.code).toBe(1)
    const d = json(diff)
    expect(d).toMatchObject({
      identical: false,
      section: 'rule:always',
      changed: ['rule:always'],
      added: [],
      removed: [],
    })
    expect(d.commonPrefixTokens).toBeGreaterThan(0)
  })

  it('diff explains two compiled prompts', async () => {
    const a = await cli(['show', '--format', 'json', ...fast], { cwd: repo })
    const b = await cli(['show', '--format', 'json', '--path', 'sub/a.test.ts', ...fast], { cwd: repo })
    await writeFile(join(repo, 'a.json'), a.stdout)
    await writeFile(join(repo, 'b.json'), b.stdout)
    const [changed, same, text, broken] = await Promise.all([
      cli(['diff', 'a.json', 'b.json', '--json'], { cwd: repo }),
      cli(['diff', 'a.json', 'a.json', '--json'], { cwd: repo }),
      cli(['diff', 'a.json', 'b.json'], { cwd: repo }),
      cli(['diff', 'a.json', 'AGENTS.md'], { cwd: repo }),
    ])
    expect(changed.code).toBe(1)
    const d = json(changed)
    expect(d).toMatchObject({
      identical: false,
      section: 'rule:tests',
      added: ['rule:tests'],
      removed: [],
      changed: [],
    })
    expect(d.firstDifference).toBe(json(a).text.length)
    expect(d.commonPrefixTokens).toBe(json(a).tokens)
    expect(same.code).toBe(0)
    expect(json(same).identical).toBe(true)
    expect(text.stdout).toContain('in section rule:tests')
    expect(broken.code).toBe(1)
    oneErrorLine(broken)
  })
})

describe('init', () => {
  it('writes a starter .sysprompt/ that show uses, and refuses to overwrite', async () => {
    const repo = join(base, 'init')
    await mkdir(repo)
    execFileSync('git', ['init', '-q', repo])
    const first = await cli(['init', '--json'], { cwd: repo })
    expect(first.code).toBe(0)
    expect(json(first).written).toEqual([
      join(repo, '.sysprompt', 'template.md'),
      join(repo, '.sysprompt', 'rules', 'example.md'),
      join(repo, '.sysprompt', 'fragments', 'layered-identity.md'),
    ])
    const identity = join(repo, '.sysprompt', 'fragments', 'layered-identity.md')
    await writeFile(
      identity,
      (await readFile(identity, 'utf8')).replace(/\n---\n[\s\S]*$/, '\n---\nYou are the init test agent.\n'),
    )
    const [inspect, rule, layered, again] = await Promise.all([
      cli(['inspect', '--json', '--tokenizer', 'estimate'], { cwd: repo }),
      cli(['show', '--format', 'json', '--path', 'src/x.test.ts', '--tokenizer', 'estimate'], { cwd: repo }),
      cli(['show', '--preset', 'layered', '--tokenizer', 'estimate'], { cwd: repo }),
      cli(['init'], { cwd: repo }),
    ])
    expect(json(inspect).prompt).toMatchObject({
      kind: 'template',
      file: '.sysprompt/template.md',
      builtin: false,
      dialect: 'bracket',
    })
    expect(json(rule).sections.map((s: { name: string }) => s.name)).toContain('rule:example')
    expect(layered.stdout.startsWith('You are the init test agent.')).toBe(true)
    expect(again.code).toBe(1)
    oneErrorLine(again)
    expect(again.stderr).toContain('.sysprompt/template.md already exists')
  })
})

describe.concurrent('usage errors', () => {
  it('exit 2 with one line that says what to do', async () => {
    const results = await Promise.all([
      cli(['show', '--bogus']),
      cli(['show', '--tokenizer', 'nope']),
      cli(['show', '--cwd', join(base, 'no-such-dir')]),
      cli(['show', '--preset', 'layered', '--template', 'x.md']),
      cli(['diff', 'only-one.json']),
      cli(['lint', '--max-tokens', 'many']),
      cli(['frobnicate']),
    ])
    for (const r of results) {
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      oneErrorLine(r)
    }
    expect(results[2]!.stderr).toContain('no-such-dir: no such directory')
  })

  it('prints help with examples, and usage with no command', async () => {
    const [help, none] = await Promise.all([cli(['inspect', '--help']), cli([])])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('Examples:')
    expect(help.stdout).toContain('--provider <name>')
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('Commands:')
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
    expect(r.stdout).toContain('packages/api/AGENTS.md')
    expect(r.stdout).toContain('docs/conventions.md (imported)')
    expect(r.stdout).not.toContain('packages/web/AGENTS.md')
    expect(r.stdout).toMatch(/answers +in/)
    expect(r.stderr).toBe('')
  })
})
