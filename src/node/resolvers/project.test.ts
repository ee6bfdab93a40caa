import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AssembleContext } from '../../registry/types.js'
import { type FileSystemAdapter, nodeAdapters, type OsAdapter } from '../adapters.js'
import { discoverInstructions } from '../instructions/discover.js'
import { nodeResolvers } from '../node-resolvers.js'
import { projectResolver } from './project.js'

let base: string
let home: string
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-project-')))
  home = join(base, 'home')
  await mkdir(home)
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

const osAt = (homedir: string): OsAdapter => ({
  platform: () => 'linux',
  release: () => '6.1.0',
  hostname: () => 'h',
  homedir: () => homedir,
  env: () => undefined,
})

function resolver(root: string, fs: FileSystemAdapter = nodeAdapters().fs) {
  return projectResolver({
    fs,
    os: osAt(home),
    root,
    cwdOf: (ctx: AssembleContext) => (typeof ctx.cwd === 'string' ? ctx.cwd : root),
  })
}

describe('project resolver', () => {
  it('gives the nearest .git ancestor of the working directory as the root', async () => {
    const repo = join(base, 'work', 'repo')
    await mkdir(join(repo, '.git'), { recursive: true })
    await mkdir(join(repo, 'pkg', 'a'), { recursive: true })
    const values = await resolver(join(base, 'work')).resolve(['project:root'], {
      cwd: join(repo, 'pkg', 'a'),
    })
    expect(values.get('project:root')).toBe(repo)
  })

  it('gives the configured root outside a repository', async () => {
    const root = join(base, 'plain')
    await mkdir(root)
    // A file system with no `.git` anywhere, whatever lies above the temp dir.
    const fs: FileSystemAdapter = {
      ...nodeAdapters().fs,
      stat: async (path) => {
        if (path.endsWith('/.git')) throw new Error('ENOENT')
        return nodeAdapters().fs.stat(path)
      },
    }
    expect((await resolver(root, fs).resolve(['project:root'], {})).get('project:root')).toBe(root)
  })

  it('joins the instruction files from the project root down to the working directory', async () => {
    const repo = join(base, 'repo')
    await mkdir(join(repo, '.git'), { recursive: true })
    await mkdir(join(repo, 'pkg'), { recursive: true })
    await writeFile(join(repo, 'AGENTS.md'), 'Root rules.\n')
    await writeFile(join(repo, 'pkg', 'AGENTS.md'), 'Package rules.\n')
    const cwd = join(repo, 'pkg')
    const value = (await resolver(repo).resolve(['project:instructions'], { cwd })).get(
      'project:instructions',
    )
    const expected = await discoverInstructions({ cwd, root: repo, home })
    // The discovered text without its trailing line break: the template decides the spacing around it.
    expect(value).toBe(expected.text.trimEnd())
    expect(value).toContain('Root rules.')
    expect(value).toContain('Package rules.')
    expect(value?.indexOf('Root rules.')).toBeLessThan(value?.indexOf('Package rules.') ?? -1)
  })

  it('is absent when there is no instruction file', async () => {
    const repo = join(base, 'bare')
    await mkdir(join(repo, '.git'), { recursive: true })
    expect(
      (await resolver(repo).resolve(['project:instructions'], {})).get('project:instructions'),
    ).toBeNull()
  })

  it('touches the disk only for the keys asked', async () => {
    const stats: string[] = []
    const real = nodeAdapters().fs
    const fs: FileSystemAdapter = {
      ...real,
      stat: (path) => {
        stats.push(path)
        return real.stat(path)
      },
    }
    const values = await resolver(base, fs).resolve(['project:nothing'], {})
    expect(values.get('project:nothing')).toBeNull()
    expect(stats).toEqual([])
  })

  describe('keeps to the configured root (nodeResolvers)', () => {
    async function values(root: string, keys: string[], cwd?: string) {
      const resolvers = nodeResolvers({ root, adapters: { os: osAt(home) } })
      const byNs = new Map(resolvers.map((r) => [r.namespace, r]))
      const context = cwd === undefined ? {} : { cwd }
      const out = new Map<string, string | null>()
      for (const key of keys) {
        const found = await byNs.get(key.slice(0, key.indexOf(':')))!.resolve([key], context)
        out.set(key, found.get(key) ?? null)
      }
      return out
    }

    it('ignores a repository enclosing the root: the root is the project root', async () => {
      const repo = join(base, 'repo')
      const root = join(repo, 'b')
      await mkdir(join(repo, '.git'), { recursive: true })
      await mkdir(join(root, 'pkg'), { recursive: true })
      await writeFile(join(repo, 'AGENTS.md'), 'Outside the root.\n')
      await writeFile(join(root, 'AGENTS.md'), 'Root rules.\n')
      await writeFile(join(root, 'pkg', 'AGENTS.md'), 'Package rules.\n')
      const got = await values(root, ['project:root', 'project:instructions', 'file:../../AGENTS.md'], 'pkg')
      expect(got.get('project:root')).toBe(root)
      expect(got.get('project:instructions')).toContain('Root rules.')
      expect(got.get('project:instructions')).toContain('Package rules.')
      expect(got.get('project:instructions')).not.toContain('Outside the root.')
      // The same boundary `file:` keeps.
      expect(got.get('file:../../AGENTS.md')).toBeNull()
    })

    it('takes a repository between the working directory and the root', async () => {
      const root = join(base, 'mono')
      const pkg = join(root, 'packages', 'a')
      await mkdir(join(pkg, '.git'), { recursive: true })
      await mkdir(join(pkg, 'src'), { recursive: true })
      await writeFile(join(root, 'AGENTS.md'), 'Monorepo rules.\n')
      await writeFile(join(pkg, 'AGENTS.md'), 'Package rules.\n')
      const got = await values(root, ['project:root', 'project:instructions'], join(pkg, 'src'))
      expect(got.get('project:root')).toBe(pkg)
      // The walk starts at the project root, as discovery from that root does.
      expect(got.get('project:instructions')).toBe(
        (await discoverInstructions({ cwd: join(pkg, 'src'), root: pkg, home })).text.trimEnd(),
      )
      expect(got.get('project:instructions')).not.toContain('Monorepo rules.')
    })

    it('gives no instructions for a working directory outside the root', async () => {
      const root = join(base, 'root')
      const elsewhere = join(base, 'elsewhere')
      await mkdir(root)
      await mkdir(elsewhere)
      await writeFile(join(elsewhere, 'AGENTS.md'), 'Not ours.\n')
      const got = await values(root, ['project:root', 'project:instructions'], elsewhere)
      expect(got.get('project:root')).toBe(root)
      expect(got.get('project:instructions')).toBeNull()
    })
  })
})
