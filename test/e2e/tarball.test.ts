import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repoRoot } from './cli.test-helper.js'

// The README's "use it on your own repository": the packed tarball installed
// into a fresh project from the local npm cache only (`--offline`), then its
// `sysprompt` command run there. `npm ci` caches the dependencies' tarballs
// but not their registry metadata, so the project gets a lockfile naming
// the tarball and this repository's own resolved entries of the package's
// runtime dependencies (never its dev or peer ones: a plain install of the
// package must build nothing native).

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

// The Node running this suite first on PATH, so `npm` and `npx` run on it:
// CI runs the suite on Node 22, 24 and 26 in turn.
const PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`

function run(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, encoding: 'utf8', maxBuffer: 16 << 20, env: { ...process.env, PATH, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          stdout,
          stderr,
        })
      },
    )
  })
}

type LockEntry = Record<string, unknown> & { dev?: boolean; peer?: boolean }

/** A project depending on the tarball, and its lockfile: the tarball plus the repository's locked runtime dependencies. */
async function projectFiles(tarball: string): Promise<{ manifest: string; lock: string }> {
  const own = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8'))
  const locked = JSON.parse(await readFile(join(repoRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>
  }
  const devDependencies = { sysprompt: `file:${tarball}` }
  const packages: Record<string, LockEntry> = {
    '': { name: 'someone-elses-project', devDependencies },
    'node_modules/sysprompt': {
      version: own.version,
      resolved: `file:${tarball}`,
      dev: true,
      license: own.license,
      dependencies: own.dependencies,
      ...(own.peerDependencies === undefined ? {} : { peerDependencies: own.peerDependencies }),
      ...(own.peerDependenciesMeta === undefined ? {} : { peerDependenciesMeta: own.peerDependenciesMeta }),
      bin: own.bin,
      engines: own.engines,
    },
  }
  for (const [path, entry] of Object.entries(locked.packages)) {
    if (path === '' || entry.dev === true || entry.peer === true || !path.startsWith('node_modules/'))
      continue
    packages[path] = { ...entry, dev: true }
  }
  return {
    manifest: `${JSON.stringify({ name: 'someone-elses-project', private: true, devDependencies }, null, 2)}\n`,
    lock: `${JSON.stringify({ name: 'someone-elses-project', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  }
}

let dir = ''
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-tarball-')))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('the packed package', () => {
  it('installs offline into another project and runs `sysprompt inspect` there', async () => {
    const pack = await run(npm, ['pack', '--json', '--pack-destination', dir], repoRoot)
    expect(pack.stderr).not.toMatch(/ERR!/)
    expect(pack.code).toBe(0)
    const packed = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[]
    const { filename, files } = packed[0]!
    const shipped = files.map((f) => f.path)
    expect(shipped).toContain('dist/bin/sysprompt.cjs')
    // The encodings' compact rank tables, which a cold count reads instead of building gpt-tokenizer's map.
    expect(shipped).toContain('dist/tokenizer/o200k_base.bin')
    expect(shipped).toContain('dist/tokenizer/cl100k_base.bin')
    expect(shipped).toContain('presets/default/project-template.md')
    expect(shipped.some((p) => p.endsWith('.test.js') || p.startsWith('src/'))).toBe(false)

    const project = join(dir, 'project')
    await mkdir(join(project, 'docs'), { recursive: true })
    const { manifest, lock } = await projectFiles(join(dir, filename))
    await writeFile(join(project, 'package.json'), manifest)
    await writeFile(join(project, 'package-lock.json'), lock)
    await writeFile(join(project, 'AGENTS.md'), '# Elsewhere\n\nRun `make check` before you finish.\n')
    await mkdir(join(project, '.git'))
    const install = await run(npm, ['ci', '--offline', '--no-audit', '--no-fund'], project)
    expect(install.stderr).not.toMatch(/ERR!/)
    expect(install.code).toBe(0)
    // No native driver is built by a plain install (they are optional peers, loaded lazily).
    expect(install.stdout + install.stderr).not.toMatch(/node-gyp|prebuild-install/)

    // As the README says it: `npx sysprompt inspect`, on the Node this suite runs on.
    const inspect = await run(
      process.platform === 'win32' ? 'npx.cmd' : 'npx',
      ['--offline', 'sysprompt', 'inspect'],
      project,
    )
    expect(inspect.stderr).toBe('')
    expect(inspect.code).toBe(0)
    expect(inspect.stdout).toContain(`root      ${project}`)
    expect(inspect.stdout).toMatch(/^ {2}AGENTS\.md +\d+/m)
    const show = await run(
      process.execPath,
      [join(project, 'node_modules', '.bin', 'sysprompt'), 'show'],
      project,
    )
    expect(show.stdout).toContain('Run `make check` before you finish.')
  }, 600_000)
})
