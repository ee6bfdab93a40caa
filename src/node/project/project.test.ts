import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readPromptOptions } from '../../cli/options.js'
import { buildProject } from './project.js'

let dir: string
const env = () => ({ XDG_CONFIG_HOME: join(dir, 'config') })

async function write(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, text)
}

async function repo(name: string, files: Record<string, string>): Promise<string> {
  const root = join(dir, name)
  await mkdir(root, { recursive: true })
  execFileSync('git', ['init', '-q', root])
  for (const [path, text] of Object.entries(files)) await write(join(root, path), text)
  return root
}

async function build(cwd: string, raw: Record<string, unknown> = {}) {
  const options = await readPromptOptions({ tokenizer: 'estimate', ...raw }, cwd)
  return buildProject(options, env())
}

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-project-')))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('buildProject', () => {
  it('uses the built-in project template, else .sysprompt/template.md', async () => {
    const plain = await repo('plain', { 'AGENTS.md': 'Be kind.\n' })
    const builtIn = await build(plain)
    expect(builtIn.template).toMatchObject({ builtin: true, dialect: 'bracket' })
    expect(builtIn.compiled?.text).toContain('Be kind.')

    const own = await repo('own', {
      '.sysprompt/template.md': '---\ndescription: mine\ndialect: bracket\n---\nRoot: [project:root]\n',
    })
    const p = await build(own)
    expect(p.template).toMatchObject({ builtin: false, file: join(own, '.sysprompt', 'template.md') })
    expect(p.compiled?.text).toBe(`Root: ${own}`)
  })

  it('takes a fragment overriding the built-in project template by id', async () => {
    const root = await repo('override', {
      '.sysprompt/fragments/project.md':
        '---\nid: default.project-template\ndialect: bracket\n---\nOverridden in [prompt:cwd].\n',
    })
    const p = await build(root)
    expect(p.template?.builtin).toBe(false)
    expect(p.compiled?.text).toBe(`Overridden in ${root}.`)
  })

  it('names a template error by the line of its file, past the front matter', async () => {
    const root = await repo('broken', {
      't.md': '---\ndialect: mustache\norder: 3\n---\nok\n\n  {{nope:x}}\n',
    })
    const p = await build(root, { template: 't.md' })
    expect(p.compiled).toBeUndefined()
    expect(p.failure).toMatchObject({
      code: 'unknown-variable',
      file: join(root, 't.md'),
      line: 7,
      column: 3,
    })
    expect(p.failure?.message).toMatch(/^t\.md:7:3: /)
  })

  it('pins values with --set, namespaced or plain', async () => {
    const root = await repo('pinned', { 't.md': '---\ndialect: mustache\n---\n{{prompt:cwd}} {{who}}\n' })
    const p = await build(root, { template: 't.md', set: ['prompt:cwd=/workspace', 'who=ada'] })
    expect(p.compiled?.text).toBe('/workspace ada')
  })

  it('adds rules by working path and model, at least session-stable, after the template', async () => {
    const root = await repo('rules', {
      '.sysprompt/rules/tests.md': '---\npaths: ["**/*.test.ts"]\n---\nTests rule.\n',
      '.sysprompt/rules/gpt.md': '---\nmodels: ["gpt-5*"]\n---\nGPT rule.\n',
    })
    const none = await build(root)
    expect(none.compiled?.sections.map((s) => s.name)).toEqual(['template'])
    const both = await build(root, { path: ['src/a.test.ts'], model: 'gpt-5-mini' })
    expect(both.compiled?.sections.map((s) => [s.name, s.order, s.stability])).toEqual([
      ['template', 0, 'session'],
      ['rule:gpt', 300, 'session'],
      ['rule:tests', 300, 'session'],
    ])
    expect(both.sources).toMatchObject({ 'rule:tests': '.sysprompt/rules/tests.md' })
  })

  it('builds the layered and session presets with the project instructions', async () => {
    const root = await repo('presets', { 'AGENTS.md': 'Project words.\n' })
    const [layered, session] = await Promise.all([
      build(root, { preset: 'layered' }),
      build(root, { preset: 'session' }),
    ])
    expect(layered.compiled?.sections.map((s) => s.name)).toContain('project:instructions')
    expect(layered.compiled?.text).toContain('Project words.')
    expect(session.compiled?.sections.map((s) => s.name)).toContain('session:project-context')
    expect(session.compiled?.text).toContain('Project words.')
  })
})
