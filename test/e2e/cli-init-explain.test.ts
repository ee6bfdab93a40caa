import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  cli,
  json,
  makeGitDir,
  makeRepo,
  oneErrorLine,
  sandbox,
  useSandbox,
  write,
} from './cli.test-helper.js'

// `init`, `explain`, help and usage errors of the built CLI.
useSandbox()

describe('init', () => {
  it('writes a starter .sysprompt/ that show uses, and refuses to overwrite', async () => {
    const repo = await makeGitDir('init')
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

describe.concurrent('explain', () => {
  let repo: string
  let sub: string
  beforeAll(async () => {
    repo = await makeRepo('explain')
    sub = join(repo, 'sub')
    await write(join(repo, 'CLAUDE.md'), '# Claude\n\nFor Claude Code.\n')
  })

  it('says why a file or a rule is in or out', async () => {
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

  it('decides as the harness of --mode would', async () => {
    const [sysprompt, claude, claudeFile] = await Promise.all([
      cli(['explain', 'AGENTS.md', '--json'], { cwd: repo }),
      cli(['explain', 'AGENTS.md', '--json', '--mode', 'claude'], { cwd: repo }),
      cli(['explain', 'CLAUDE.md', '--json', '--mode', 'claude'], { cwd: repo }),
    ])
    expect(json(sysprompt)).toMatchObject({ status: 'included' })
    // Claude Code reads AGENTS.md only where no CLAUDE.md exists: an existing file skipped is an answer, exit 0.
    expect(claude.code).toBe(0)
    expect(json(claude)).toMatchObject({ kind: 'instructions', status: 'skipped' })
    expect(json(claudeFile)).toMatchObject({ status: 'included', file: join(repo, 'CLAUDE.md') })
  })

  it('refuses a file that does not exist as a usage error (exit 2), for instruction files and rules alike', async () => {
    const results = await Promise.all([
      cli(['explain', 'NOPE.md'], { cwd: repo }),
      cli(['explain', '.sysprompt/rules/nope.md', '--json'], { cwd: repo }),
    ])
    for (const r of results) {
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      oneErrorLine(r)
      expect(r.stderr).toContain('no such file')
    }
    expect(results[0]!.stderr).toContain('NOPE.md')
  })
})

describe.concurrent('usage errors', () => {
  it('exit 2 with one line that says what to do', async () => {
    const results = await Promise.all([
      cli(['show', '--bogus']),
      cli(['show', '--tokenizer', 'nope']),
      cli(['show', '--cwd', join(sandbox.base, 'no-such-dir')]),
      cli(['show', '--preset', 'layered', '--template', 'x.md']),
      cli(['diff', 'only-one.json']),
      cli(['lint', '--max-tokens', 'many']),
      cli(['frobnicate']),
      cli(['show', '--set', 'no-equals-sign']),
      cli(['show', '--set', 'bad key=1']),
    ])
    for (const r of results) {
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      oneErrorLine(r)
    }
    expect(results[2]!.stderr).toContain('no-such-dir: no such directory')
  })

  it('refuses --json with a --format other than json', async () => {
    const cwd = await makeGitDir('format-flags')
    const [text, anthropic, both, jsonOnly] = await Promise.all([
      cli(['show', '--format', 'text', '--json']),
      cli(['show', '--json', '--format', 'anthropic']),
      cli(['show', '--format', 'json', '--json', '--tokenizer', 'estimate'], { cwd }),
      cli(['show', '--json', '--tokenizer', 'estimate'], { cwd }),
    ])
    for (const r of [text, anthropic]) {
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      oneErrorLine(r)
      expect(r.stderr).toContain('--json')
      expect(r.stderr).toContain('pass only one of them')
    }
    expect(text.stderr).toContain('--format text')
    expect(anthropic.stderr).toContain('--format anthropic')
    // Agreeing flags are fine, and --json alone is --format json.
    expect(both.code).toBe(0)
    expect(jsonOnly.code).toBe(0)
    expect(json(both).hash).toBe(json(jsonOnly).hash)
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
