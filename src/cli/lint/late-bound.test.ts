import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildProject } from '../../node/project/project.js'
import { readPromptOptions } from '../options.js'
import { readIncludedFiles } from './included-files.js'
import { lintLateBoundRules } from './late-bound.js'

let dir: string
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-late-bound-')))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

async function project(rule: string, paths: string[]) {
  const root = join(dir, `p${Math.random().toString(36).slice(2)}`)
  await mkdir(join(root, '.git'), { recursive: true })
  const file = join(root, '.sysprompt', 'rules', 'ts.md')
  await mkdir(dirname(file), { recursive: true })
  await writeFile(file, rule)
  const options = await readPromptOptions({ tokenizer: 'estimate', path: paths }, root, {
    SYSPROMPT_CACHE: 'off',
  })
  const built = await buildProject(options, { XDG_CONFIG_HOME: join(dir, 'config') })
  return { file, findings: lintLateBoundRules(built, await readIncludedFiles(built)) }
}

describe('lint: late-bound rules in the cached prefix', () => {
  it('flags a selected path rule that would sit in the cached prefix, at its paths: line', async () => {
    const { file, findings } = await project('---\ndescription: ts\npaths: ["**/*.ts"]\n---\nStrict.\n', [
      'src/a.ts',
    ])
    expect(findings).toEqual([
      expect.objectContaining({
        code: 'late-bound-in-prefix',
        severity: 'warning',
        file,
        line: 3,
        column: 1,
      }),
    ])
    expect(findings[0]?.message).toContain('stability: turn')
  })

  it('is quiet for a rule kept after the prefix, a rule without paths, and a rule that does not apply', async () => {
    const turn = await project('---\npaths: ["**/*.ts"]\nstability: turn\n---\nStrict.\n', ['src/a.ts'])
    const always = await project('---\ndescription: always\n---\nAlways.\n', ['src/a.ts'])
    const unmatched = await project('---\npaths: ["**/*.ts"]\n---\nStrict.\n', ['README.md'])
    expect([...turn.findings, ...always.findings, ...unmatched.findings]).toEqual([])
  })
})
