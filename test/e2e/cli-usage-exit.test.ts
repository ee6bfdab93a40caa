import { describe, expect, it } from 'vitest'
import { COMMANDS } from '../../src/cli/run.js'
import { cli, makeGitDir, oneErrorLine, useSandbox } from './cli.test-helper.js'

// SPEC §9: a usage error (an unknown option, an argument too many, an option
// without its value) exits 2 with one line on stderr and nothing on stdout,
// for every command of the table the CLI is built from, so a command added
// later is covered without touching this file.
useSandbox()

const names = COMMANDS.map((c) => c.name)

describe('usage errors exit 2 for every command', () => {
  it('covers the whole command table', () => {
    expect(names).toEqual(expect.arrayContaining(['show', 'check', 'lint', 'sessions', 'serve']))
  })

  it.each(names)(
    '%s: an unknown option and an argument too many',
    async (name) => {
      const cwd = await makeGitDir(`usage-${name}`)
      const runs = await Promise.all([
        cli([name, '--no-such-option'], { cwd }),
        cli([name, 'one', 'two', 'three', 'four'], { cwd }),
      ])
      for (const r of runs) {
        expect(r.code).toBe(2)
        expect(r.stdout).toBe('')
        oneErrorLine(r)
      }
      expect(runs[0]!.stderr).toContain("unknown option '--no-such-option'")
      // The hint names the help of the command the user typed, subcommand groups (`sessions one`) included.
      for (const r of runs) expect(r.stderr).toContain(`see \`sysprompt ${name} --help\``)
    },
    120_000,
  )

  it('an unknown command and an option missing its value', async () => {
    const cwd = await makeGitDir('usage-root')
    const runs = await Promise.all([cli(['no-such-command'], { cwd }), cli(['show', '--cwd'], { cwd })])
    for (const r of runs) {
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      oneErrorLine(r)
    }
    expect(runs[0]!.stderr).toContain('see `sysprompt --help`')
  }, 120_000)
})
