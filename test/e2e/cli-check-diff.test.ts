import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { cli, fast, json, makeRepo, oneErrorLine, useSandbox, write } from './cli.test-helper.js'

// `check` and `diff` of the built CLI: the lock file, and what changed from the cache's point of view.
useSandbox()

describe('check and diff', () => {
  let repo: string
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
    const lock = JSON.parse(await readFile(join(repo, 'sysprompt.lock'), 'utf8')).entries.sysprompt
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
    // The lock has no text: the offset is the changed section's start, and says so.
    expect(d).toMatchObject({ against: 'lock', firstDifferenceIs: 'section-start' })
    const text = await cli(['diff', '--lock'], { cwd: repo })
    expect(text.code).toBe(1)
    expect(text.stdout).toContain('first changed section: rule:always\n')
    expect(text.stdout).not.toMatch(/character \d/)
    expect(text.stdout).toMatch(/changed: +rule:always/)
  })

  it('reports an unreadable lock once, with its advice once', async () => {
    const broken = await makeRepo('broken-lock')
    const lock = join(broken, 'sysprompt.lock')
    const cases: [text: string, code: string][] = [
      ['{ not json', 'is not valid JSON'],
      ['{"version": 3}', 'has version 3'],
      ['{"version": 1}', 'hash must be a string'],
      ['{"version": 2, "entries": {"sysprompt": {}}}', 'entries["sysprompt"].hash must be a string'],
    ]
    for (const [text, what] of cases) {
      await writeFile(lock, text)
      const [check, diff] = await Promise.all([
        cli(['check', ...fast], { cwd: broken }),
        cli(['diff', '--lock', ...fast], { cwd: broken }),
      ])
      for (const r of [check, diff]) {
        expect(r.code).toBe(1)
        expect(r.stdout).toBe('')
        expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
        expect(r.stderr).toContain(`sysprompt: ${lock}`)
        expect(r.stderr).toContain(what)
        expect(r.stderr.split('sysprompt check --update')).toHaveLength(2)
      }
    }
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
    expect(text.stdout).toMatch(
      new RegExp(`^first change: +character ${d.firstDifference}, in section rule:tests$`, 'm'),
    )
    expect(broken.code).toBe(1)
    oneErrorLine(broken)
  })
})
