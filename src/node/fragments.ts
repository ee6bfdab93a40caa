import { type Dirent, type FSWatcher, watch } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { byCodeUnit } from '../registry/tool-order.js'
import { type Fragment, type FragmentError, fragmentIdFromPath, parseFragment } from '../shared/fragment.js'
import { type FileSystemAdapter, nodeAdapters } from './adapters.js'
import './front-matter-yaml.js'
import { fileContentHash } from './node-hash.js'
import { type ReadOutcome, readConfinedFile } from './safe-read.js'

/** A usable set of fragments: by id, and as a list in id order. */
export interface FragmentTable {
  byId: Map<string, Fragment>
  list: Fragment[]
}

/** What `loadFragments` returns: the table of every file that parsed, and the problems of those that did not. */
export interface LoadedFragments extends FragmentTable {
  errors: FragmentError[]
}

export interface LoadFragmentsOptions {
  /** Defaults to the real file system. */
  fs?: FileSystemAdapter
  /** A larger fragment file is an error; defaults to 1 MiB. */
  maxBytes?: number
}

/** The package's own fragments (`presets/`), the first layer of `fragmentDirs`. */
export const BUILTIN_FRAGMENT_DIR = fileURLToPath(new URL('../../presets/', import.meta.url))

const DEFAULT_MAX_BYTES = 1 << 20

/**
 * Loads every `*.md` file below each directory (SPEC §6). Directories are
 * given in layering order: a fragment of a later directory replaces one of
 * an earlier directory with the same id. Two files of one directory with the
 * same id are an error naming both (the first, in path order, stays). A
 * missing directory is an empty layer. Each file is read confined to its
 * directory (a symlink out of it is refused); names starting with `.` (editor
 * lock files, `.git`) and symlinked directories are skipped. A file with
 * errors is left out and its errors, each with file, line and column, are
 * returned: the loader itself only throws on programmer error.
 */
export async function loadFragments(
  dirs: readonly string[],
  options: LoadFragmentsOptions = {},
): Promise<LoadedFragments> {
  const fs = options.fs ?? nodeAdapters().fs
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  const byId = new Map<string, Fragment>()
  const errors: FragmentError[] = []
  for (const dir of dirs) {
    const root = resolve(dir)
    const files = await listMarkdown(root, errors)
    const parsed = await Promise.all(files.map((relPath) => readFragment(root, relPath, fs, maxBytes)))
    const layer = new Map<string, Fragment>()
    for (const result of parsed) {
      errors.push(...result.errors)
      const fragment = result.fragment
      if (fragment === undefined) continue
      const first = layer.get(fragment.id)
      if (first !== undefined) {
        const at = result.positions.id ?? { line: 1, column: 1 }
        errors.push({
          file: fragment.source,
          ...at,
          code: 'duplicate-id',
          message: `id \`${fragment.id}\` is also used by ${first.source}: give one of them another \`id\` or remove it`,
        })
        continue
      }
      layer.set(fragment.id, fragment)
    }
    for (const [id, fragment] of layer) byId.set(id, fragment)
  }
  const list = [...byId.values()].sort((a, b) => byCodeUnit(a.id, b.id))
  return { byId: new Map(list.map((f) => [f.id, f])), list, errors }
}

async function readFragment(root: string, relPath: string, fs: FileSystemAdapter, maxBytes: number) {
  const file = join(root, relPath)
  // Hash exactly the bytes that were read, by watching them pass through the adapter.
  let bytes: Uint8Array | undefined
  const capturing: FileSystemAdapter = {
    ...fs,
    readFile: async (path, max) => {
      const read = await fs.readFile(path, max)
      bytes = read?.bytes
      return read
    },
  }
  const outcome = await readConfinedFile(relPath, root, { roots: [root], maxBytes, fs: capturing })
  const unreadable = (message: string) => ({
    errors: [{ file, line: 1, column: 1, code: 'unreadable' as const, message }],
    positions: {} as Record<string, { line: number; column: number }>,
    fragment: undefined,
  })
  if (!outcome.ok) return unreadable(REFUSALS[outcome.reason])
  if (outcome.truncated || bytes === undefined) {
    return unreadable(`the file is larger than ${maxBytes} bytes: split it into smaller fragments`)
  }
  const contentHash = fileContentHash(bytes)
  return parseFragment(outcome.text, { file, relPath, id: fragmentIdFromPath(relPath), contentHash })
}

const REFUSALS: Record<Extract<ReadOutcome, { ok: false }>['reason'], string> = {
  'outside-root': 'the file leads outside its fragment directory (a symlink?): copy it in instead',
  'invalid-path': 'the file name cannot be read: rename it',
  missing: 'the file disappeared or is a dangling link: check that it exists',
  'not-a-file': 'this is not a regular file: fragments must be plain Markdown files',
  binary: 'the file is binary: fragments must be UTF-8 text',
  'permission-denied': 'permission denied: make the file readable',
  'symlink-loop': 'the file is a symbolic link loop: replace it with the file itself',
  'too-large': 'the file is too large: split it into smaller fragments',
  denied: 'the file is on the deny-list of secret-bearing files: rename it',
  unreadable: 'the file could not be read: check the disk and its permissions',
}

/** `*.md` paths below `root`, relative and `/`-separated, in code-unit order. */
async function listMarkdown(root: string, errors: FragmentError[]): Promise<string[]> {
  const found: string[] = []
  const walk = async (dir: string, prefix: string): Promise<void> => {
    let entries: Dirent[]
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code
      if (code === 'ENOENT' && prefix === '') return
      const message =
        code === 'ENOTDIR'
          ? 'a fragment directory was expected here, but this is a file'
          : `cannot list this directory (${code ?? 'error'}): check its permissions`
      errors.push({ file: dir, line: 1, column: 1, code: 'unreadable', message })
      return
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue
      const rel = prefix + entry.name
      if (entry.isDirectory()) await walk(join(dir, entry.name), `${rel}/`)
      else if ((entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith('.md')) found.push(rel)
    }
  }
  await walk(root, '')
  return found.sort(byCodeUnit)
}

export interface FragmentDirsOptions {
  /** The project root; its `.sysprompt/` is the last layer. */
  projectRoot: string
  /** Defaults to `process.env` (only `XDG_CONFIG_HOME` is read). */
  env?: Record<string, string | undefined>
  /** Defaults to the user's home directory. */
  home?: string
  /** The built-in layer; defaults to `BUILTIN_FRAGMENT_DIR`, `null` leaves it out. */
  builtinDir?: string | null
}

/**
 * The standard layers, lowest first: the built-in presets, the user's
 * `$XDG_CONFIG_HOME/sysprompt` (`~/.config/sysprompt` when the variable is
 * unset or, as the XDG spec says, not absolute), and the project's
 * `.sysprompt/`.
 */
export function fragmentDirs(options: FragmentDirsOptions): string[] {
  const env = options.env ?? process.env
  const xdg = env.XDG_CONFIG_HOME
  const config = xdg !== undefined && isAbsolute(xdg) ? xdg : join(options.home ?? homedir(), '.config')
  const builtin = options.builtinDir === undefined ? BUILTIN_FRAGMENT_DIR : options.builtinDir
  return [
    ...(builtin === null ? [] : [builtin]),
    join(config, 'sysprompt'),
    join(resolve(options.projectRoot), '.sysprompt'),
  ]
}

/** What a watcher reports after a change. */
export interface FragmentReload {
  /** The table to use: the new one, or the last good one when `kept`. */
  fragments: FragmentTable
  /** The new load's problems; empty unless `kept`. */
  errors: FragmentError[]
  /** The change broke something, so `fragments` is the table from before it. */
  kept: boolean
}

export interface WatchFragmentsOptions extends LoadFragmentsOptions {
  /** Quiet time after the last change before reloading; defaults to 100 ms. */
  debounceMs?: number
  /** The table the caller already uses (the last good one); loaded at start when absent. */
  initial?: FragmentTable & { errors?: FragmentError[] }
}

export interface FragmentWatcher {
  /** Resolves once the directories are watched and the starting table is known. */
  ready: Promise<void>
  /** Stops watching; no report arrives after it resolves. */
  close(): Promise<void>
}

/**
 * Watches fragment directories and reloads them after changes settle
 * (debounced). A reload without errors becomes the current table and is
 * reported with `kept: false`; a reload with errors keeps the last good
 * table and reports the errors with `kept: true`, so a half-typed edit never
 * replaces working fragments; fixing it reports the fixed table. Reloads
 * that change nothing (same files, hashes and errors) are not reported.
 * A directory that does not exist yet is noticed when it is created
 * (its parent is watched until then).
 */
export function watchFragments(
  dirs: readonly string[],
  onReload: (reload: FragmentReload) => void,
  options: WatchFragmentsOptions = {},
): FragmentWatcher {
  const debounceMs = options.debounceMs ?? 100
  const roots = dirs.map((d) => resolve(d))
  // `ino` tells a directory removed and created again (whose old watcher is dead) from the same one.
  const watchers = new Map<string, { watcher: FSWatcher; ino: number | undefined }>()
  let good: FragmentTable | undefined = options.initial
  let lastSignature = options.initial === undefined ? undefined : signature(options.initial)
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<void> | undefined
  let again = false
  let closed = false

  const schedule = () => {
    if (closed) return
    if (timer !== undefined) clearTimeout(timer)
    timer = setTimeout(() => {
      timer = undefined
      if (running !== undefined) again = true
      else running = reload()
    }, debounceMs)
  }

  const reload = async (): Promise<void> => {
    try {
      await ready
      do {
        again = false
        // Watch first, then read: a file written in between is read, or reported by the new watcher.
        await syncWatchers()
        const result = await loadFragments(roots, options)
        if (closed) return
        const sig = signature(result)
        if (sig === lastSignature) continue
        lastSignature = sig
        const kept = result.errors.length > 0 && good !== undefined
        if (!kept) good = { byId: result.byId, list: result.list }
        onReload({ fragments: good!, errors: result.errors, kept })
      } while (again && !closed)
    } finally {
      running = undefined
    }
  }

  // Watch each directory recursively when it exists, else its parent until it appears.
  const syncWatchers = async (): Promise<void> => {
    for (const root of roots) {
      const ino = await stat(root).then(
        (s) => (s.isDirectory() ? s.ino : undefined),
        () => undefined,
      )
      const exists = ino !== undefined
      const current = watchers.get(root)
      if (current !== undefined && current.ino === ino) continue
      current?.watcher.close()
      watchers.delete(root)
      if (closed) return
      try {
        const target = exists ? root : dirname(root)
        const name = basename(root)
        const watcher = watch(target, { recursive: exists }, (_event, file) => {
          if (exists || file === null || String(file) === name) schedule()
        })
        // A watched directory that is removed errors on some platforms: look again.
        watcher.on('error', () => {
          watcher.close()
          if (watchers.get(root)?.watcher === watcher) watchers.delete(root)
          schedule()
        })
        watchers.set(root, { watcher, ino })
      } catch {
        // Neither the directory nor its parent exists: nothing to watch at this level.
      }
    }
  }

  const ready = (async () => {
    await syncWatchers()
    if (good === undefined) {
      const initial = await loadFragments(roots, options)
      good ??= { byId: initial.byId, list: initial.list }
      lastSignature ??= signature(initial)
    }
  })()

  return {
    ready,
    async close() {
      closed = true
      if (timer !== undefined) clearTimeout(timer)
      await ready.catch(() => {})
      await running
      for (const { watcher } of watchers.values()) watcher.close()
      watchers.clear()
    },
  }
}

/** What decides whether a reload changed anything. */
function signature(loaded: FragmentTable & { errors?: FragmentError[] }): string {
  return JSON.stringify([
    loaded.list.map((f) => [f.id, f.source, f.contentHash]),
    (loaded.errors ?? []).map((e) => [e.file, e.line, e.column, e.message]),
  ])
}
