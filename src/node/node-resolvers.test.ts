import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { keyStability, resolveVariables } from '../registry/resolve-variables.js'
import type { VariableResolver } from '../registry/types.js'
import { compileTemplate } from '../template/index.js'
import type { Adapters, GitAdapter, OsAdapter } from './adapters.js'
import { nodeResolvers, ResolverOptionError } from './node-resolvers.js'

let root: string
let home: string
beforeEach(async () => {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-resolvers-')))
  root = join(base, 'project')
  home = join(base, 'home')
  await mkdir(join(root, 'src'), { recursive: true })
  await mkdir(home)
  await writeFile(join(root, 'AGENTS.md'), 'Root rules.\n')
  await writeFile(join(root, 'src', 'NOTES.md'), 'Notes in src.\n')
})
afterEach(async () => {
  await rm(join(root, '..'), { recursive: true, force: true })
})

function countingGit(): GitAdapter & { calls: string[][] } {
  const calls: string[][] = []
  return {
    calls,
    async run(args) {
      calls.push(args)
      // Where the repository is (the root itself), no drivers configured, then the answers.
      if (args[0] === 'rev-parse') return { ok: true, stdout: `${root}\n${root}/.git\n${root}/.git\n` }
      if (args[0] === 'config') return { ok: false, stdout: '', failure: 'error', exitCode: 1 }
      return { ok: true, stdout: args[0] === 'symbolic-ref' ? 'main\n' : '' }
    },
  }
}

const os: OsAdapter = {
  platform: () => 'linux',
  release: () => '6.1.0',
  hostname: () => 'build-01',
  homedir: () => home,
  env: (name) => ({ CI: 'true', TOKEN: 'secret' })[name],
}

function adapters(git: GitAdapter = countingGit()): Partial<Adapters> {
  return { git, os, clock: { now: () => new Date('2025-01-31T09:05:00Z') } }
}

const NAMESPACES = ['system', 'prompt', 'git', 'file', 'project', 'env']

describe('nodeResolvers', () => {
  it('gives one resolver per namespace', () => {
    expect(nodeResolvers({ root, adapters: adapters() }).map((r) => r.namespace)).toEqual(NAMESPACES)
  })

  it('describes every key of the SPEC §3 table with its stability', () => {
    const catalog = nodeResolvers({ root, envAllowlist: ['CI'], adapters: adapters() }).flatMap((r) =>
      r.describe(),
    )
    expect(Object.fromEntries(catalog.map((i) => [i.key, [i.stability, i.pattern ?? false]]))).toEqual({
      'system:date': ['turn', false],
      'system:time': ['turn', false],
      'system:os': ['static', false],
      'system:hostname': ['static', false],
      'prompt:cwd': ['session', false],
      'prompt:model': ['session', false],
      'prompt:conversation_id': ['session', false],
      'prompt:workspace_id': ['session', false],
      'git:branch': ['turn', false],
      'git:status': ['turn', false],
      'file:<path>': ['session', true],
      'project:root': ['session', false],
      'project:instructions': ['session', false],
      'env:CI': ['session', false],
      'env:<NAME>': ['session', true],
    })
    for (const info of catalog) expect(info.description.length).toBeGreaterThan(0)
  })

  it('gives stabilities through keyStability, pattern entries included', () => {
    const resolvers = nodeResolvers({ root, adapters: adapters() })
    const of = (key: string) =>
      keyStability(
        resolvers.find((r) => key.startsWith(`${r.namespace}:`)),
        key,
      )
    expect(of('git:branch')).toBe('turn')
    expect(of('file:docs/any.md')).toBe('session')
    expect(of('system:os')).toBe('static')
  })

  describe('each resolver', () => {
    const every = (): VariableResolver[] => nodeResolvers({ root, adapters: adapters() })
    it('answers exactly the keys asked, unknown ones absent', async () => {
      for (const resolver of every()) {
        const keys = [`${resolver.namespace}:no_such_key_here`]
        const values = await resolver.resolve(keys, {})
        expect([...values]).toEqual([[keys[0], null]])
        expect([...(await resolver.resolve([], {}))]).toEqual([])
      }
    })
    it('describes only keys of its namespace', () => {
      for (const resolver of every()) {
        for (const info of resolver.describe())
          expect(info.key.startsWith(`${resolver.namespace}:`)).toBe(true)
      }
    })
  })

  it('resolves a template’s keys and never runs git for a template without git keys', async () => {
    const git = countingGit()
    const resolvers = nodeResolvers({ root, timeZone: 'UTC', envAllowlist: ['CI'], adapters: adapters(git) })
    const template = compileTemplate(
      'On [system:date] at [system:time] in [prompt:cwd] ([project:root]).\n[if file:AGENTS.md][file:AGENTS.md][endif][env:CI][env:TOKEN]',
      { dialect: 'bracket' },
    )
    const values = await resolveVariables(resolvers, template.variables, { model: 'gpt-5' })
    expect(git.calls).toEqual([])
    expect(template.render(values)).toBe(`On 2025-01-31 at 09:05 in ${root} (${root}).\nRoot rules.\ntrue`)
  })

  it('runs only the git command a template asks for', async () => {
    const git = countingGit()
    const resolvers = nodeResolvers({ root, adapters: adapters(git) })
    const values = await resolveVariables(
      resolvers,
      compileTemplate('[git:branch]', { dialect: 'bracket' }).variables,
    )
    expect(values.get('git:branch')).toBe('main')
    expect(git.calls.map((args) => args[0])).toEqual(['rev-parse', 'config', 'symbolic-ref'])
  })

  it('takes the working directory from the context, then the options, then the root', async () => {
    const resolvers = nodeResolvers({ root, cwd: 'src', adapters: adapters() })
    const keys = ['prompt:cwd', 'file:NOTES.md']
    expect(Object.fromEntries(await resolveVariables(resolvers, keys))).toEqual({
      'prompt:cwd': join(root, 'src'),
      'file:NOTES.md': 'Notes in src.\n',
    })
    expect(Object.fromEntries(await resolveVariables(resolvers, keys, { cwd: root }))).toEqual({
      'prompt:cwd': root,
      'file:NOTES.md': null,
    })
    const plain = nodeResolvers({ root, adapters: adapters() })
    expect((await resolveVariables(plain, ['prompt:cwd'])).get('prompt:cwd')).toBe(root)
  })

  it('confines file: to the root and extra roots', async () => {
    const extra = join(root, '..', 'shared-docs')
    await mkdir(extra)
    await writeFile(join(extra, 'STYLE.md'), 'Shared style.\n')
    const key = `file:${join(extra, 'STYLE.md')}`
    expect((await resolveVariables(nodeResolvers({ root, adapters: adapters() }), [key])).get(key)).toBeNull()
    const widened = nodeResolvers({ root, extraRoots: [extra], adapters: adapters() })
    expect((await resolveVariables(widened, [key])).get(key)).toBe('Shared style.\n')
  })

  it('applies fileMaxBytes', async () => {
    await writeFile(join(root, 'long.md'), 'one\ntwo\nthree\n')
    const resolvers = nodeResolvers({ root, fileMaxBytes: 9, adapters: adapters() })
    expect((await resolveVariables(resolvers, ['file:long.md'])).get('file:long.md')).toBe(
      'one\ntwo\n[… truncated: 14 bytes of long.md, showing the first 8 …]',
    )
  })

  it('passes gitTimeoutMs to git (default 2000 ms)', async () => {
    const timeouts: number[] = []
    const git: GitAdapter = {
      async run(_args, options) {
        timeouts.push(options.timeoutMs)
        return { ok: true, stdout: 'main\n' }
      },
    }
    await resolveVariables(nodeResolvers({ root, adapters: adapters(git) }), ['git:branch'])
    await resolveVariables(nodeResolvers({ root, gitTimeoutMs: 50, adapters: adapters(git) }), ['git:branch'])
    expect(timeouts).toEqual([2000, 50])
  })

  it('rejects bad options when built', () => {
    expect(() => nodeResolvers({ root, timeZone: 'Nowhere/Special' })).toThrow(ResolverOptionError)
    expect(() => nodeResolvers({ root, fileMaxBytes: 0 })).toThrow(/fileMaxBytes/)
    expect(() => nodeResolvers({ root, gitTimeoutMs: Number.NaN })).toThrow(/gitTimeoutMs/)
  })
})
