import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

// A project none of whose files has front matter builds without loading
// the YAML parser; the first file with front matter loads it. Fresh modules,
// so that no earlier test has loaded it already.

let dir: string
const env = () => ({ XDG_CONFIG_HOME: join(dir, 'config') })

async function repo(name: string, files: Record<string, string>): Promise<string> {
  const root = join(dir, name)
  await mkdir(root, { recursive: true })
  execFileSync('git', ['init', '-q', root])
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), text)
  }
  return root
}

/** Builds the project at `cwd` in fresh modules, counting how often the YAML parser is loaded. */
async function buildCountingYaml(cwd: string, modes?: string) {
  vi.resetModules()
  const { buildProject } = await import('./project.js')
  const { readPromptOptions } = await import('../../cli/options.js')
  const { registerFrontMatterYaml } = await import('../../shared/fragment.js')
  const { requireYaml } = await import('../require-yaml.js')
  const load = vi.fn(requireYaml)
  registerFrontMatterYaml(load)
  const raw = { tokenizer: 'estimate', ...(modes === undefined ? {} : { mode: modes }) }
  const project = await buildProject(await readPromptOptions(raw, cwd, env()), env())
  return { project, loads: load.mock.calls.length }
}

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-yaml-')))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('the YAML parser loads only for front matter', () => {
  it('a project without front matter builds without it; one rule with front matter loads it once', async () => {
    const files = {
      'AGENTS.md': '# Project\n\nBe kind.\n',
      '.sysprompt/rules/plain.md': 'Always answer briefly.\n',
    }
    const plain = await buildCountingYaml(await repo('plain', files))
    expect(plain.project.compiled?.text).toContain('Always answer briefly.')
    expect(plain.loads).toBe(0)
    const withFront = await buildCountingYaml(
      await repo('front', {
        ...files,
        '.sysprompt/rules/tests.md': '---\ndescription: tests\n---\nRun them.\n',
      }),
    )
    expect(withFront.project.compiled?.text).toContain('Run them.')
    expect(withFront.loads).toBe(1)
  })
})
