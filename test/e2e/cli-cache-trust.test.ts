import { execFileSync } from 'node:child_process'
import { createHash, createHmac } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { chmod, cp, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { bin, cli, env, json, makeRepo, sandbox, useSandbox } from './cli.test-helper.js'

// The user's caches hold compiled code and token counts. A repository can
// place its own where sysprompt looks when CI sets HOME or XDG_CACHE_HOME
// inside the checkout, and every unkeyed check can be computed by whoever
// wrote the file: the built command must run none of it, count with none of
// it, and say so once.

useSandbox()
vi.setConfig({ testTimeout: 120_000 })

const PWNED = 'PWNED by a committed code cache'
let evilRuns = 0
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex')

/** A real cache made by the built command, outside every project, for `args` in `repo`. */
async function honestCache(name: string, repo: string, args: string[]): Promise<string> {
  const home = join(sandbox.base, name)
  const r = await cli(args, { cwd: repo, env: env({ XDG_CACHE_HOME: home }) })
  expect(r.code).toBe(0)
  return join(home, 'sysprompt')
}

/**
 * V8 code for the command line bundle's wrapper around other source of
 * the same length, run once so the cache holds its functions: V8 checks a
 * cache against the source's length, not its text. Made in a clean Node
 * process, as the launcher compiles.
 */
function evilCodeCache(): Buffer {
  const out = join(sandbox.base, `evil-${evilRuns++}.bin`)
  const program = `
    const { readFileSync, writeFileSync } = require('node:fs')
    const { Script } = require('node:vm')
    const file = ${JSON.stringify(join(bin, '..', 'cli.cjs'))}
    const length = readFileSync(file, 'utf8').length
    const evil = ${JSON.stringify(`process.stdout.write(${JSON.stringify(`${PWNED}\n`)});`)}.padEnd(length, ' ')
    const script = new Script('(function (exports, require, module, __filename, __dirname) {' + evil + '\\n})', { filename: file })
    script.runInThisContext()({}, require, {}, file, '')
    writeFileSync(${JSON.stringify(out)}, script.createCachedData())
  `
  execFileSync(process.execPath, ['-e', program], { stdio: 'ignore' })
  return readFileSync(out)
}

/**
 * Rewrites the checked file at `path` around `payload`: the header's payload
 * hash recomputed, and its MAC too, under `key` or else the cache's own key
 * (a committed cache brings its key along).
 */
async function forgeCodeCache(cacheDir: string, path: string, payload: Buffer, key?: Buffer): Promise<void> {
  const bytes = await readFile(path)
  const { payload: _, mac, ...fields } = JSON.parse(bytes.subarray(0, bytes.indexOf(10)).toString())
  const header: Record<string, string> = { ...fields }
  const keyFile = join(cacheDir, 'key')
  const secret = key ?? (existsSync(keyFile) ? await readFile(keyFile) : undefined)
  if (mac !== undefined && secret !== undefined) {
    header.mac = createHmac('sha256', secret)
      .update(`${JSON.stringify(fields)}\n${sha256(payload)}`)
      .digest('hex')
  }
  const line = Buffer.from(JSON.stringify({ ...header, payload: sha256(payload) }))
  await writeFile(
    path,
    Buffer.concat([line, Buffer.alloc(7 - (line.length % 8), ' '), Buffer.from('\n'), payload]),
  )
}

/** Sets every count in the cache to 1, re-signing each file with the cache's key when it has one (or `key`). */
async function forgeCounts(cacheDir: string, key?: Buffer): Promise<void> {
  const dir = join(cacheDir, 'counts')
  const keyFile = join(cacheDir, 'key')
  const secret = key ?? (existsSync(keyFile) ? await readFile(keyFile) : undefined)
  for (const name of await readdir(dir)) {
    const file = JSON.parse(await readFile(join(dir, name), 'utf8'))
    file.entries = file.entries.map(([k]: [string, number]) => [k, 1])
    if (file.mac !== undefined && secret !== undefined)
      file.mac = createHmac('sha256', secret)
        .update(`${file.format}\n${JSON.stringify(file.entries)}`)
        .digest('hex')
    await writeFile(join(dir, name), JSON.stringify(file))
  }
}

/** Makes a copied cache look as private as a real one: directories 0700, the key 0600. */
async function privateModes(cacheDir: string): Promise<void> {
  for (const dir of [cacheDir, join(cacheDir, 'v8'), join(cacheDir, 'counts')])
    if (existsSync(dir)) await chmod(dir, 0o700)
  if (existsSync(join(cacheDir, 'key'))) await chmod(join(cacheDir, 'key'), 0o600)
}

const warnings = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('sysprompt: warning:'))

describe('a cache inside the repository', () => {
  it('a committed code cache and forged counts under XDG_CACHE_HOME in the checkout are never used', async () => {
    const repo = await makeRepo('cache-in-repo')
    const honest = json(await cli(['show', '--json', '--no-cache'], { cwd: repo }))
    const made = await honestCache('cache-made', repo, ['show', '--json'])
    const committed = join(repo, '.cache', 'sysprompt')
    await cp(made, committed, { recursive: true })
    await forgeCodeCache(committed, join(committed, 'v8', 'cli-show.bin'), evilCodeCache())
    await forgeCounts(committed)
    await privateModes(committed)
    const r = await cli(['show', '--json'], { cwd: repo, env: env({ XDG_CACHE_HOME: join(repo, '.cache') }) })
    expect(r.stdout).not.toContain(PWNED)
    expect(r.code).toBe(0)
    expect(json(r).tokens).toBe(honest.tokens)
    expect(warnings(r.stderr)).toEqual([
      `sysprompt: warning: the cache directory ${committed} is inside the project at ${repo}, where a repository could have put it, so it is not used; pass --no-cache to use none`,
    ])
  })

  it('HOME inside the checkout, or --cwd naming it from elsewhere, counts as inside too', async () => {
    const repo = await makeRepo('home-in-repo')
    const made = await honestCache('home-made', repo, ['show', '--json'])
    const committed = join(repo, 'ci-home', '.cache', 'sysprompt')
    await cp(made, committed, { recursive: true })
    await forgeCodeCache(committed, join(committed, 'v8', 'cli-show.bin'), evilCodeCache())
    await privateModes(committed)
    const runs = await Promise.all([
      cli(['show'], { cwd: repo, env: { PATH: process.env.PATH ?? '', HOME: join(repo, 'ci-home') } }),
      cli(['show', '--cwd', repo], {
        cwd: sandbox.base,
        env: { PATH: process.env.PATH ?? '', HOME: join(repo, 'ci-home') },
      }),
    ])
    for (const r of runs) {
      expect(r.stdout).not.toContain(PWNED)
      expect(r.code).toBe(0)
      expect(warnings(r.stderr)).toHaveLength(1)
      expect(r.stderr).toContain(`the cache directory ${committed} is inside the project at `)
    }
  })
})

describe('a cache outside the repository, tampered with', () => {
  it('forged entries without the user key are ignored and rebuilt, with one warning', async () => {
    const repo = await makeRepo('cache-tampered')
    const honest = json(await cli(['show', '--json', '--no-cache'], { cwd: repo }))
    const cache = await honestCache('tampered-home', repo, ['show', '--json'])
    // Whoever tampers does not hold the user's key: their MACs are under another one.
    await forgeCodeCache(cache, join(cache, 'v8', 'cli-show.bin'), evilCodeCache(), Buffer.alloc(32, 5))
    await forgeCounts(cache, Buffer.alloc(32, 5))
    const run = () =>
      cli(['show', '--json'], {
        cwd: repo,
        env: env({ XDG_CACHE_HOME: join(sandbox.base, 'tampered-home') }),
      })
    const r = await run()
    expect(r.stdout).not.toContain(PWNED)
    expect(json(r).tokens).toBe(honest.tokens)
    const lines = warnings(r.stderr)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/failed (its|their) checks; .* will be rebuilt/)
    // Rebuilt: the next run is quiet and counts the same.
    const again = await run()
    expect(again.stderr).toBe('')
    expect(json(again).tokens).toBe(honest.tokens)
  })

  it('a cache directory open to other users is not used', async () => {
    const repo = await makeRepo('cache-open')
    const cache = await honestCache('open-home', repo, ['show', '--json'])
    await chmod(cache, 0o777)
    const r = await cli(['show', '--json'], {
      cwd: repo,
      env: env({ XDG_CACHE_HOME: join(sandbox.base, 'open-home') }),
    })
    expect(r.code).toBe(0)
    expect(warnings(r.stderr)).toEqual([
      `sysprompt: warning: the cache directory ${cache} is open to other users (mode 777, not 700), so it is not used: make it private or remove it; pass --no-cache to use none`,
    ])
  })
})
