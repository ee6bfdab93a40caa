import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cli, fast, json, makeGitDir, useSandbox, write } from './cli.test-helper.js'

// Repositories built to make the command line hang or run out of memory
// (issue 30, findings 4, 6 and 10), on real files with the built command.
// Nothing here times anything: each test checks what comes out (the
// diagnostic, the mark, the size of the output), and a hang is left to
// the test timeout.

useSandbox()

const MiB = 1024 * 1024

/** `k` files a level, `levels` levels, each importing all of the next; every file also holds `pad` bytes of prose. */
async function layered(repo: string, top: string, k: number, levels: number, pad: number): Promise<void> {
  const prose = `${'Keep changes small and tested. '.repeat(Math.ceil(pad / 31)).slice(0, pad)}\n`
  const refs = (level: number, prefix: string) =>
    Array.from({ length: k }, (_, i) => `@${prefix}l${level}/f${i}.md`).join('\n')
  await write(join(repo, top), `${refs(1, '')}\n`)
  for (let level = 1; level <= levels; level++)
    for (let i = 0; i < k; i++)
      await write(
        join(repo, `l${level}`, `f${i}.md`),
        `${prose}${level < levels ? `${refs(level + 1, '../')}\n` : ''}`,
      )
}

interface LintFinding {
  code: string
  severity: string
  message: string
  file?: string
}

const findings = (stdout: string): LintFinding[] => JSON.parse(stdout)

describe('imports that multiply (finding 4)', () => {
  it.each([
    ['sysprompt', 'AGENTS.md'],
    ['gemini', 'GEMINI.md'],
  ])('%s mode: 6 files a level importing each other 5 levels deep stop at the budget', async (mode, top) => {
    const repo = await makeGitDir(`imports-${mode}`)
    // 7 776 import paths of 2 KB each: 15 MB expanded, past the 4 MiB budget.
    await layered(repo, top, 6, 5, 2000)
    const shown = await cli(['show', '--mode', mode, ...fast], { cwd: repo })
    expect(shown.code).toBe(0)
    expect(shown.stdout.length).toBeLessThan(5 * MiB)
    if (mode === 'gemini')
      expect(shown.stdout).toContain('past the expansion budget; Gemini CLI would send it]')
    const lint = await cli(['lint', '--mode', mode, '--json', ...fast], { cwd: repo })
    const budget = findings(lint.stdout).filter((f) => f.code === 'expansion-budget')
    expect(budget).toHaveLength(1)
    expect(budget[0]!.message).toMatch(
      /^l\d\/f\d\.md \(imported by l\d\/f\d\.md\) is past the expansion budget/,
    )
  })

  it('a 900 KB file imported 8 000 times: no crash, four copies and marks', async () => {
    const repo = await makeGitDir('big-import')
    await write(join(repo, 'big.md'), `BIG-START\n${`${'x'.repeat(99)}\n`.repeat(9000)}`)
    await write(join(repo, 'GEMINI.md'), '@big.md\n'.repeat(8000))
    const shown = await cli(['show', '--mode', 'gemini', ...fast], { cwd: repo })
    expect(shown.code).toBe(0)
    expect(shown.stdout.split('BIG-START').length - 1).toBe(4)
    expect(shown.stdout).toContain('[withheld: big.md, past the expansion budget; Gemini CLI would send it]')
    expect(shown.stdout.length).toBeLessThan(5 * MiB)
    const lint = await cli(['lint', '--mode', 'gemini', '--json', ...fast], { cwd: repo })
    const budget = findings(lint.stdout).filter((f) => f.code === 'expansion-budget')
    expect(budget.map((f) => [f.severity, f.file])).toEqual([['warning', join(repo, 'GEMINI.md')]])
    expect(budget[0]!.message).toContain('big.md (imported by GEMINI.md) is past the expansion budget')
  })

  it('takes the budget from --max-expanded-files and --max-expanded-bytes', async () => {
    const repo = await makeGitDir('budget-flags')
    await write(join(repo, 'AGENTS.md'), 'top\n@a.md\n@b.md\n')
    await write(join(repo, 'a.md'), 'A\n')
    await write(join(repo, 'b.md'), 'B\n')
    const files = await cli(['show', '--max-expanded-files', '2', ...fast], { cwd: repo })
    expect(files.stdout).toContain('A\n[not read: b.md, past the expansion budget]\n')
    // AGENTS.md takes 16 of the 17 bytes, so a.md does not fit.
    const bytes = await cli(['show', '--max-expanded-bytes', '17', ...fast], { cwd: repo })
    expect(bytes.stdout).toContain('[not read: a.md, past the expansion budget]')
    const bad = await cli(['show', '--max-expanded-bytes', 'lots', ...fast], { cwd: repo })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--max-expanded-bytes lots: not a positive whole number')
  })
})

describe('backticks (finding 6)', () => {
  it.each([
    ['claude', 'CLAUDE.md'],
    ['gemini', 'GEMINI.md'],
  ])(
    '%s mode: 200 KB of backticks and letters scan in one pass, imports after them still found',
    async (mode, top) => {
      const repo = await makeGitDir(`ticks-${mode}`)
      await write(join(repo, top), `x${'`'.repeat(100_000)}${'a'.repeat(100_000)}\n@after.md\n`)
      await write(join(repo, 'after.md'), 'AFTER THE BACKTICKS\n')
      const shown = await cli(['show', '--mode', mode, ...fast], { cwd: repo })
      expect(shown.code).toBe(0)
      expect(shown.stdout).toContain('AFTER THE BACKTICKS')
    },
  )
})

describe('amplification (finding 10)', () => {
  it('200 ** globs over 2 000 directories, and a glob that backtracks, in opencode.json', async () => {
    const repo = await makeGitDir('globs')
    for (let i = 0; i < 2000; i += 100)
      await Promise.all(
        Array.from({ length: 100 }, (_, j) => {
          const dir = join(repo, `d${String(i + j).padStart(4, '0')}`)
          return mkdir(dir).then(() => writeFile(join(dir, 'notes.md'), `notes ${i + j}\n`))
        }),
      )
    await write(join(repo, `${'a'.repeat(60)}b.md`), 'long name\n')
    const instructions = [
      ...Array.from({ length: 200 }, (_, i) => `**/nothing-${i}.md`),
      `${'*a'.repeat(12)}.md`,
      'd0007/*.md',
    ]
    await write(join(repo, 'opencode.json'), JSON.stringify({ instructions }))
    const shown = await cli(['show', '--mode', 'opencode', ...fast], { cwd: repo })
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain('notes 7\n')
    expect(shown.stdout).not.toContain('long name')
    const lint = await cli(['lint', '--mode', 'opencode', '--json', ...fast], { cwd: repo })
    const refused = findings(lint.stdout).filter((f) => f.message.includes('has 12 * in the segment'))
    expect(refused.map((f) => [f.code, f.severity])).toEqual([['harness-config', 'warning']])
  })

  it('[file:] placed 1 000 times prints at most the budget, and says so', async () => {
    const repo = await makeGitDir('file-uses')
    await write(join(repo, 'big.md'), `${'z'.repeat(1023)}\n`.repeat(100))
    await write(
      join(repo, '.sysprompt', 'template.md'),
      `---\ndialect: bracket\n---\n${'[file:big.md]\n'.repeat(1000)}`,
    )
    const shown = await cli(['show', ...fast], { cwd: repo })
    expect(shown.code).toBe(0)
    expect(shown.stdout.length).toBeLessThan(5 * MiB)
    expect(shown.stdout).toContain('[withheld: file:big.md, past the expansion budget')
    expect(shown.stderr).toContain('file:big.md is past the expansion budget')
    const lint = await cli(['lint', '--json', ...fast], { cwd: repo })
    expect(findings(lint.stdout).map((f) => f.code)).toContain('expansion-budget')
    const inspect = json(await cli(['inspect', '--json', ...fast], { cwd: repo }))
    expect(JSON.stringify(inspect)).toContain('expansion-budget')
  })
})
