import { execFile, execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { bin, cli, env, fast, makeGitDir, repoRoot, sandbox, useSandbox, write } from './cli.test-helper.js'

// Terminal escapes in a repository (issue 30, finding 3): an instruction
// file, a file NAME and the template carry OSC 52 (writes the clipboard),
// an erase-line sequence, SGR colours, a C1 CSI, a bidirectional override
// and lines that a CI runner would read as workflow commands. Prose output
// shows all of them as visible escapes; `show` keeps the prompt byte for
// byte into a pipe, escaped on a terminal unless --raw; JSON keeps the
// exact text with C1 escaped; `lint` reports each control at file:line:col.

useSandbox()
vi.setConfig({ testTimeout: 120_000 })

const OSC52 = '\u001b]52;c;c2VjcmV0\u0007'
const ERASE = '\u001b[2K\u001b[1A'
const SGR = '\u001b[31m'
const CSI = '\u009b'
const RLO = '\u202E'
/** An imported file's name: an SGR sequence and a C1 control. */
const NAME = `n${SGR}ote${CSI}.md`
const SHOWN_NAME = 'n\\x1b[31mote\\u009b.md'
const TEMPLATE = `Template ${OSC52} start\n::error::from the template\n[project:instructions]\n`
const AGENTS = `# Project\n\nclip ${OSC52} erase ${ERASE} colour ${SGR}red csi ${CSI}31m bidi ${RLO}rev\n::error file=AGENTS.md::pwned\n##[add-mask]hidden\n\n@docs/${NAME}\n`

/** What no terminal or CI log may get from repository text: ESC, other controls, C1, bidi, workflow command lines. */
function expectSafe(text: string, what: string): void {
  expect(text, what).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/)
  expect(text, what).not.toMatch(/\r(?!\n)/)
  expect(text, what).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/)
  for (const line of text.split(/\r?\n/)) {
    expect(line, what).not.toMatch(/^\s*::/)
    expect(line, what).not.toMatch(/##[A-Za-z]*\[/)
  }
}

let repo = ''
beforeAll(async () => {
  repo = await makeGitDir('escapes')
  await write(join(repo, '.sysprompt', 'template.md'), TEMPLATE)
  await write(join(repo, 'AGENTS.md'), AGENTS)
  await write(join(repo, 'docs', NAME), 'note\n')
  await write(join(repo, '.sysprompt', 'rules', `r${ERASE}ule.md`), '---\ndescription: r\n---\nA rule.\n')
  await write(join(repo, '.cursor', 'rules', `c${SGR}ur.mdc`), '---\nalwaysApply: true\n---\nCursor rule.\n')
})

/** `sysprompt args…` on a terminal (a pseudo-terminal from util-linux `script`): the output as the terminal got it. */
function onTerminal(args: string[]): Promise<string> {
  const quoted = [process.execPath, bin, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ')
  return new Promise((resolve) => {
    execFile(
      'script',
      ['-qec', quoted, '/dev/null'],
      { cwd: repo, env: env({ TERM: 'xterm', COLUMNS: '200' }), encoding: 'utf8' },
      (_error, stdout) => resolve(stdout.replaceAll('\r\n', '\n')),
    )
  })
}

let hasScript = true
try {
  execFileSync('script', ['--version'], { stdio: 'ignore' })
} catch {
  hasScript = false
}

describe('prose output', () => {
  it('shows every escape of the repository as visible text, in every command', async () => {
    const runs = {
      inspect: await cli(['inspect', ...fast], { cwd: repo }),
      lint: await cli(['lint', ...fast], { cwd: repo }),
      matrix: await cli(['matrix', ...fast], { cwd: repo }),
      vars: await cli(['vars', ...fast], { cwd: repo }),
      explainFile: await cli(['explain', 'AGENTS.md'], { cwd: repo }),
      explainName: await cli(['explain', join('docs', NAME), '--mode', 'claude'], { cwd: repo }),
      missing: await cli(['explain', `gone${OSC52}.md`], { cwd: repo }),
      check: await cli(['check', ...fast], { cwd: repo }),
    }
    for (const [what, r] of Object.entries(runs)) expectSafe(r.stdout + r.stderr, what)
    expect(runs.inspect.stdout).toContain(SHOWN_NAME)
    expect(runs.inspect.stdout).toContain('r\\x1b[2K\\x1b[1Aule')
    expect(runs.matrix.stdout).toContain('c\\x1b[31mur.mdc')
    expect(runs.vars.stdout).toContain('\\x1b]52;c;c2VjcmV0\\x07')
    expect(runs.explainName.stdout).toContain(`docs/${SHOWN_NAME}: included`)
    expect(runs.missing.code).toBe(2)
    expect(runs.missing.stderr).toContain('gone\\x1b]52;c;c2VjcmV0\\x07.md')
    expect(runs.check.code).toBe(1)
  })

  it('lint reports each control character at file:line:col as an error', async () => {
    const r = await cli(['lint', ...fast], { cwd: repo })
    expect(r.code).toBe(1)
    const at = (prefix: string, code: string) =>
      r.stdout.split('\n').some((l) => l.startsWith(prefix) && l.endsWith(`[${code}]`))
    expect(at('.sysprompt/template.md:1:10: error: control character U+001B ESC', 'control-character')).toBe(
      true,
    )
    expect(at('AGENTS.md:3:6: error: control character U+001B ESC', 'control-character')).toBe(true)
    expect(at('AGENTS.md:3:21: error: control character U+0007 BEL', 'control-character')).toBe(true)
    expect(at('AGENTS.md:3:29: error: control character U+001B ESC', 'control-character')).toBe(true)
    expect(at('AGENTS.md:3:58: error: control character U+009B CSI', 'control-character')).toBe(true)
    expect(at('AGENTS.md:3:68: error: bidirectional control U+202E', 'bidi-control')).toBe(true)
    const data = await cli(['lint', '--json', ...fast], { cwd: repo })
    expect(data.stdout).not.toMatch(/[\u0080-\u009f]/)
    expect(JSON.parse(data.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'control-character', file: expect.any(String) }),
      ]),
    )
  })

  it('names a file with escapes in a warning on stderr without running them', async () => {
    const broken = await makeGitDir('escapes-warning')
    await write(join(broken, 'AGENTS.md'), 'Plain.\n')
    await write(join(broken, '.sysprompt', 'rules', `b${OSC52}.md`), '---\npaths: [unclosed\n---\nx\n')
    const r = await cli(['show', ...fast], { cwd: broken })
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('sysprompt: warning: ')
    expect(r.stderr).toContain('b\\x1b]52;c;c2VjcmV0\\x07.md')
    expectSafe(r.stderr, 'warning')
  })
})

describe('show', () => {
  it('prints the prompt byte for byte into a pipe: its sha256 is the hash', async () => {
    const [text, data] = [
      await cli(['show', ...fast], { cwd: repo }),
      await cli(['show', '--json', ...fast], { cwd: repo }),
    ]
    expect(text.code).toBe(0)
    const compiled = JSON.parse(data.stdout) as { text: string; hash: string }
    expect(text.stdout).toBe(compiled.text)
    expect(`sha256:${createHash('sha256').update(text.stdout).digest('hex')}`).toBe(compiled.hash)
    expect(compiled.text).toContain(OSC52)
    expect(compiled.text).toContain(`${CSI}31m`)
    // JSON keeps the exact text; C1 and bidi are \u escapes, ESC is escaped by JSON itself.
    expect(data.stdout).not.toMatch(/[\u001b\u0080-\u009f\u202e]/)
    expect(data.stdout).toContain('\\u009b31m')
    const harness = await cli(['show', '--mode', 'claude', '--as-harness', ...fast], { cwd: repo })
    expect(harness.stdout).toContain(OSC52)
  })

  it.skipIf(!hasScript)(
    'on a terminal shows escapes unless --raw, and keeps its own colours (needs util-linux script)',
    async () => {
      const shown = await onTerminal(['show', ...fast])
      expect(shown).toContain('Template \\x1b]52;c;c2VjcmV0\\x07 start')
      expect(shown).toContain('\n\\::error::from the template\n')
      expect(shown).toContain('bidi <U+202E>rev')
      expect(shown).toContain('##\\[add-mask]hidden')
      expectSafe(shown, 'show on a terminal')
      expect(shown.endsWith('\n')).toBe(true)
      const raw = await onTerminal(['show', '--raw', ...fast])
      expect(raw).toContain(OSC52)
      const inspect = await onTerminal(['inspect', ...fast])
      expect(inspect).toContain('\u001b[1mSections\u001b[22m')
      expect(inspect).toContain(SHOWN_NAME)
      expect(inspect).not.toContain(`n${SGR}ote`)
    },
  )
})

describe('sessions show', () => {
  it('prints a stored prompt byte for byte into a pipe, escaped on a terminal unless --raw', async () => {
    const data = await cli(['show', '--json', ...fast], { cwd: repo })
    const compiled = JSON.parse(data.stdout) as { hash: string; tokens: number; text: string }
    const store = join(sandbox.base, 'escapes-ledger.db')
    const { sqliteStore } = (await import(
      pathToFileURL(join(repoRoot, 'dist', 'store', 'index.js')).href
    )) as {
      sqliteStore: (o: { path: string }) => {
        createSession(id: string, v: unknown): Promise<unknown>
        close(): Promise<void>
      }
    }
    const ledger = sqliteStore({ path: store })
    await ledger.createSession('hostile', {
      version: 1,
      hash: compiled.hash,
      tokens: compiled.tokens,
      reason: `construct${ERASE}`,
      at: '2025-01-01T00:00:00.000Z',
      compiled,
    })
    await ledger.close()
    const piped = await cli(['sessions', 'show', 'hostile', '--store', `sqlite:${store}`])
    expect(piped.code).toBe(0)
    const [head, ...rest] = piped.stdout.split('\n')
    expect(head).toContain('construct\\x1b[2K\\x1b[1A')
    expect(rest.join('\n')).toBe(`${compiled.text}\n`)
    if (!hasScript) return
    const shown = await onTerminal(['sessions', 'show', 'hostile', '--store', `sqlite:${store}`])
    expect(shown).toContain('\\x1b]52;c;c2VjcmV0\\x07')
    expectSafe(shown.replace(/\u001b\[(?:2|22)m/g, ''), 'sessions show on a terminal')
    const raw = await onTerminal(['sessions', 'show', 'hostile', '--store', `sqlite:${store}`, '--raw'])
    expect(raw).toContain(OSC52)
  })
})
