import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { cli, fast, json, type Result, sandbox, useSandbox, write } from './cli.test-helper.js'

// Outside any repository each harness walks as it really does (recorded from the published
// harnesses on the `no-git` tree of test/fixtures/harness/trees.ts): opencode, Claude Code and pi
// read the directories above cwd, Codex 0.171.0 and Gemini CLI 0.61.0 only cwd. The root sysprompt
// computes for its own files is not their boundary; a root chosen with --root is (issue 32).
useSandbox()

// Several runs of the built command per test; a busy 2-core machine needs more than the default 30 s.
const SLOW = 120_000

let top = ''
let cwd = ''
beforeAll(async () => {
  top = join(sandbox.base, 'plain')
  cwd = join(top, 'a', 'b')
  await write(join(top, 'AGENTS.md'), '# Above\n\nTwo levels up, no git anywhere.\n')
  await write(join(top, 'GEMINI.md'), '# Gemini above\n')
  await write(join(top, 'a', 'AGENTS.md'), '# Between\n')
  await write(join(cwd, 'AGENTS.md'), '# Here\n')
  await write(join(cwd, 'GEMINI.md'), '# Gemini here\n')
})

const files = (r: Result) => json(r).instructions.files.map((f: { path: string }) => f.path.slice(top.length))

describe('outside git', () => {
  it(
    'opencode reads AGENTS.md up to the file-system root; Codex and Gemini CLI only the working directory',
    async () => {
      const [opencode, codex, gemini] = await Promise.all(
        ['opencode', 'codex', 'gemini'].map((mode) =>
          cli(['inspect', '--json', '--mode', mode, ...fast], { cwd }),
        ),
      )
      expect(files(opencode!)).toEqual(['/a/b/AGENTS.md', '/a/AGENTS.md', '/AGENTS.md'])
      expect(files(codex!)).toEqual(['/a/b/AGENTS.md'])
      expect(files(gemini!)).toEqual(['/a/b/GEMINI.md'])
    },
    SLOW,
  )

  it(
    'explain names the boundary: no git root, or the root chosen with --root',
    async () => {
      const [none, chosen] = await Promise.all([
        cli(['explain', join(top, 'AGENTS.md'), '--mode', 'codex'], { cwd }),
        cli(['explain', join(top, 'AGENTS.md'), '--mode', 'opencode', '--root', join(top, 'a')], { cwd }),
      ])
      expect(none.stdout).toContain(
        `codex mode reads only the working directory ${cwd} (there is no git root)`,
      )
      expect(none.stdout).not.toContain('the git root')
      expect(chosen.stdout).toContain(`up to the root ${join(top, 'a')} (chosen with --root)`)
      expect(chosen.stdout).toContain('skipped')
    },
    SLOW,
  )
})
