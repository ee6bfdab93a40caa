import { cp, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  cli,
  env,
  fast,
  json,
  makeGitDir,
  oneErrorLine,
  sandbox,
  useSandbox,
  write,
} from './cli.test-helper.js'

// `sysprompt matrix` of the built CLI, on the shared multi-convention fixture tree.
useSandbox()

let repo = ''
beforeAll(async () => {
  repo = await makeGitDir('conventions')
  await cp(join(import.meta.dirname, '..', 'fixtures', 'conventions', 'repo'), repo, { recursive: true })
  // A Copilot file longer than code review's 4 000-character reading: line 101 holds character 4 001.
  await writeFile(join(repo, '.github', 'copilot-instructions.md'), `${'x'.repeat(39)}\n`.repeat(150))
})

interface Row {
  path: string | null
  start: string[]
  forPath: string[]
  tokens: { start: number; path: number; total: number }
  cut: { file: string; line?: number; rule: string }[]
  fires: string[]
}

describe('matrix', () => {
  it('prints a summary per harness, then one row per harness and working path, no path cut, no number split', async () => {
    const env = { PATH: process.env.PATH ?? '', HOME: sandbox.home, COLUMNS: '80' }
    const args = ['matrix', '--path', 'src/app.ts', '--path', 'README.md', ...fast]
    const [r, data] = await Promise.all([
      cli(args, { cwd: repo, env }),
      cli([...args, '--json'], { cwd: repo, env }),
    ])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    const header = lines.indexOf('')
    expect(header).toBeGreaterThan(0)
    // Summaries first, wrapped at word boundaries within 80 columns: every harness named before the table.
    for (const line of lines.slice(0, header)) expect(line.length, line).toBeLessThanOrEqual(80)
    for (const mode of ['codex', 'claude', 'copilot', 'cursor', 'windsurf', 'continue'])
      expect(
        lines.slice(0, header).some((l) => l.startsWith(`${mode}: `)),
        mode,
      ).toBe(true)
    // A grouped number is never split: no line ends in a digit group that the next line continues.
    for (let i = 0; i + 1 < lines.length; i++)
      expect(`${lines[i]}\n${lines[i + 1]}`).not.toMatch(/(^|[^\d])\d{1,3}\n\s*\d{3}(?!\d)/)
    // A block per working path: the path alone on its line, then a row per harness.
    const block = lines.indexOf('src/app.ts')
    expect(block).toBeGreaterThan(header)
    expect(lines[block + 1]).toMatch(/^ {2}harness +start +\+path +tokens$/)
    expect(lines.slice(block).some((l) => /^ {2}copilot +\d/.test(l))).toBe(true)
    expect(lines).toContain('README.md')
    // Every path the data names is printed whole, relative to the root, on a line of its own list.
    const harnesses = (json(data) as { harnesses: { rows: Row[] }[] }).harnesses
    const named = new Set(
      harnesses.flatMap((h) => h.rows.flatMap((row) => [...row.fires, ...row.cut.map((c) => c.file)])),
    )
    expect(named).toContain('.github/instructions/ts.instructions.md')
    expect(named).toContain('src/AGENTS.md')
    for (const path of named)
      expect(
        lines.some((l) => l.trim() === path || l.trimEnd().endsWith(` ${path}`) || l.includes(` ${path}:`)),
        path,
      ).toBe(true)
    expect(r.stdout).not.toContain('…')
    expect(lines.slice(0, header).join(' ').replace(/ +/g, ' ')).toMatch(
      /code review reads 4 000 characters of a file/,
    )
  })

  it('gives the same table as data with --json, and the Copilot budget where it cuts', async () => {
    const r = await cli(['matrix', '--modes', 'copilot,cursor', '--path', 'src/app.ts', '--json', ...fast], {
      cwd: repo,
    })
    expect(r.code, r.stderr).toBe(0)
    const data = json(r) as { harnesses: { mode: string; budget: string | null; rows: Row[] }[] }
    expect(data.harnesses.map((h) => h.mode)).toEqual(['copilot', 'cursor'])
    const [copilot, cursor] = data.harnesses
    expect(copilot!.budget).toBe('code review reads 4 000 characters of a file')
    expect(copilot!.rows[0]!.cut).toEqual([
      {
        file: '.github/copilot-instructions.md',
        line: 101,
        omitted: 2000,
        rule: 'code review reads 4 000 characters of a file',
      },
    ])
    expect(cursor!.rows[0]).toMatchObject({
      path: 'src/app.ts',
      start: ['.cursor/rules/always.mdc', '.cursorrules', 'AGENTS.md'],
      forPath: ['.cursor/rules/ts.mdc', 'src/.cursor/rules/src.mdc', 'src/AGENTS.md'],
      fires: ['.cursor/rules/ts.mdc', 'src/.cursor/rules/src.mdc', 'src/AGENTS.md'],
    })
    expect(cursor!.rows[0]!.tokens.path).toBeGreaterThan(0)
    expect(cursor!.rows[0]!.tokens.total).toBe(cursor!.rows[0]!.tokens.start + cursor!.rows[0]!.tokens.path)
  })

  it('fits 80 columns when piped with a working path and rule files deeper than a line, every path whole', async () => {
    const dir = await makeGitDir('deep-paths')
    const deep = 'packages/a-package-with-a-long-name/src/components/deeply/nested/module-directory'
    const file = `${deep}/the-component-file-with-a-long-name.ts`
    expect(file.length).toBeGreaterThan(80)
    const rule = 'typescript-conventions-for-the-components-of-this-package'
    await Promise.all([
      write(join(dir, 'AGENTS.md'), '# Project\n'),
      write(join(dir, 'CLAUDE.md'), '# Project\n'),
      write(join(dir, deep, 'AGENTS.md'), '# Nested\n'),
      write(join(dir, deep, 'CLAUDE.md'), '# Nested\n'),
      write(join(dir, file), 'export {}\n'),
      write(join(dir, '.cursor', 'rules', `${rule}.mdc`), '---\nglobs: "**/*.ts"\n---\nTypes.\n'),
      write(
        join(dir, '.github', 'instructions', `${rule}.instructions.md`),
        '---\napplyTo: "**/*.ts"\n---\nTypes.\n',
      ),
      write(join(dir, '.claude', 'rules', `${rule}.md`), '---\npaths: ["**/*.ts"]\n---\nTypes.\n'),
      write(
        join(dir, '.windsurf', 'rules', `${rule}.md`),
        '---\ntrigger: glob\nglobs: "**/*.ts"\n---\nTypes.\n',
      ),
    ])
    // Not a terminal and no COLUMNS: the width is 80.
    const args = ['matrix', '--path', file, ...fast]
    const [r, data] = await Promise.all([
      cli(args, { cwd: dir, env: env() }),
      cli([...args, '--json'], { cwd: dir }),
    ])
    expect(r.code, r.stderr).toBe(0)
    const rows = (json(data) as { harnesses: { rows: Row[] }[] }).harnesses.flatMap((h) => h.rows)
    const paths = new Set(rows.flatMap((row) => [row.path!, ...row.fires, ...row.cut.map((c) => c.file)]))
    expect(paths).toContain(file)
    expect(paths).toContain(`${deep}/CLAUDE.md`)
    expect(paths).toContain(`.cursor/rules/${rule}.mdc`)
    expect(paths).toContain(`.github/instructions/${rule}.instructions.md`)
    const lines = r.stdout.trimEnd().split('\n')
    // Only a line that is one whole path may be wider than 80 columns.
    for (const line of lines) if (line.length > 80) expect(paths, line).toContain(line)
    // Every path is printed whole: alone on its line, or after a label.
    for (const path of paths)
      expect(
        lines.some((l) => l.trim() === path || l.trimEnd().endsWith(` ${path}`)),
        path,
      ).toBe(true)
    expect(r.stdout).not.toContain('…')
  })

  it("explain names a rule's activation in a convention mode", async () => {
    const [ask, ts] = await Promise.all([
      cli(['explain', '.cursor/rules/ask.mdc', '--mode', 'cursor'], { cwd: repo }),
      cli(['explain', '.cursor/rules/ts.mdc', '--mode', 'cursor', '--path', 'src/app.ts', '--json'], {
        cwd: repo,
      }),
    ])
    expect(ask.code, ask.stderr).toBe(0)
    expect(ask.stdout).toMatch(
      /^\.cursor\/rules\/ask\.mdc: skipped: Cursor loads it only when the model asks for it .* \(activation: requested\)\n$/,
    )
    expect(json(ts)).toMatchObject({ status: 'late-bound', activation: 'glob' })
  })

  it('refuses an unknown mode with one line naming the choices', async () => {
    const r = await cli(['matrix', '--modes', 'copilot,vim'], { cwd: repo })
    expect(r.code).toBe(2)
    oneErrorLine(r)
    expect(r.stderr).toContain('--modes vim: not a mode')
  })
})
