import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { type FileSystemAdapter, nodeAdapters } from '../adapters.js'
import { fixtureTree, removeFixtures } from './fixtures.test-helper.js'
import { dirsDown, findGitRoot } from './git-root.js'

afterAll(removeFixtures)

const fs = nodeAdapters().fs

describe('findGitRoot', () => {
  it('finds the nearest directory holding .git (a directory or a file), from cwd up', async () => {
    const base = await fixtureTree({
      '.git': { dir: true },
      'sub/.git': 'gitdir: x\n',
      'sub/a/b': { dir: true },
    })
    expect(await findGitRoot(join(base, 'sub/a/b'), '/', fs)).toBe(join(base, 'sub'))
    expect(await findGitRoot(join(base, 'sub'), '/', fs)).toBe(join(base, 'sub'))
    expect(await findGitRoot(base, '/', fs)).toBe(base)
  })

  it('stops at stopAt, which it still looks in, and at the file-system root', async () => {
    const base = await fixtureTree({ '.git': { dir: true }, 'a/b': { dir: true } })
    expect(await findGitRoot(join(base, 'a/b'), join(base, 'a'), fs)).toBeNull()
    expect(await findGitRoot(join(base, 'a/b'), base, fs)).toBe(base)
  })

  it('ends at the file-system root when stopAt is not above it', async () => {
    // No .git anywhere: every stat fails, as on a machine with no repository.
    const nothing: FileSystemAdapter = {
      ...fs,
      stat: async (path) => {
        throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' })
      },
    }
    expect(await findGitRoot('/a/b/c', '/elsewhere', nothing)).toBeNull()
  })

  it('does not take a .git that is neither a file nor a directory', async () => {
    const base = await fixtureTree({ '.git': { dir: true }, sub: { dir: true } })
    execFileSync('mkfifo', [join(base, 'sub/.git')])
    expect(await findGitRoot(join(base, 'sub'), base, fs)).toBe(base)
  })
})

describe('dirsDown', () => {
  it('lists the directories from top down to bottom, both included', () => {
    expect(dirsDown('/a', '/a/b/c')).toEqual(['/a', '/a/b', '/a/b/c'])
    expect(dirsDown('/a', '/a')).toEqual(['/a'])
    expect(dirsDown('/', '/x')).toEqual(['/', '/x'])
  })

  it('gives only bottom when it does not lie below top', () => {
    expect(dirsDown('/a/b', '/a')).toEqual(['/a'])
    expect(dirsDown('/a', '/b/c')).toEqual(['/b/c'])
  })
})
