import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** A file's text, a symbolic link to `link`, or a directory. */
export type FixtureEntry = string | { link: string } | { dir: true }

const made: string[] = []

/**
 * Builds a fixture tree in a fresh temp directory and returns its real
 * path. Keys are `/`-separated paths; `.git: { dir: true }` makes a
 * repository root. Remove everything with `removeFixtures()`.
 */
export async function fixtureTree(entries: Record<string, FixtureEntry>): Promise<string> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-instr-')))
  made.push(base)
  for (const [rel, entry] of Object.entries(entries)) {
    const path = join(base, ...rel.split('/'))
    if (typeof entry === 'string') {
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, entry)
    } else if ('link' in entry) {
      await mkdir(dirname(path), { recursive: true })
      await symlink(entry.link, path)
    } else {
      await mkdir(path, { recursive: true })
    }
  }
  return base
}

/** An empty directory to pass as `home`, so no real global file leaks in. */
export function emptyHome(): Promise<string> {
  return fixtureTree({})
}

/** Removes every tree `fixtureTree` made. */
export async function removeFixtures(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
}
