/**
 * Records what the published harnesses send for their instruction files,
 * as fixtures for `test/harness-recordings.test.ts`.
 *
 * NOT RUN IN CI: it installs the harness packages from npm (into a
 * temporary directory that is deleted afterwards; nothing of them is
 * committed) and runs each one. Run it by hand after a harness release:
 *
 *   eval "$(bash scripts/node.sh 22)"   # pi 1.x needs Node 22.19 or later; harnesses run on this Node
 *   npx tsx scripts/record-harness/record.ts [--only pi,gemini@0.61.0] [--trees ruff] [--keep] [--raw]
 *
 * `--only` takes modes (`pi`: every pi recorder, 0.73.1 and 1.6.0) or
 * recordings (`pi@1.6.0`); a tree that names its `recordings` is recorded
 * only by those.
 *
 * For every harness and every tree of `test/fixtures/harness/trees.ts` it
 * builds the tree and an empty home in a temporary directory, points the
 * harness at a mock model server on 127.0.0.1 (`mock-server.ts`), runs one
 * non-interactive turn, takes the request the harness sent, cuts out the
 * instruction part (see each `extract` in `harnesses.ts`) and writes it to
 * `test/fixtures/harness/<mode>@<version>/<tree>.<placement>.txt`, with
 * the tree's path written as `<ROOT>` and the home directory as `<HOME>`;
 * `<tree>.parts.json` lists the placements found.
 *
 * `capture-traffic.ts` runs the same steps to keep every request whole (the
 * traffic fixtures of `test/fixtures/traffic/`).
 */
import { execFile, spawn } from 'node:child_process'
import { cp, mkdir, mkdtemp, readdir, realpath, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, parse } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs, promisify } from 'node:util'
import {
  type HarnessTree,
  HOME,
  ROOT,
  recordedOn,
  TREES,
  withRoot,
} from '../../test/fixtures/harness/trees.js'
import { type HarnessRecorder, RECORDERS } from './harnesses.js'
import { type CapturedRequest, startMockModelServer } from './mock-server.js'
import { pointsItself, recordEnv, recordLines, recordPrefix, startRecordListen } from './through-record.js'

const run = promisify(execFile)
const here = dirname(new URL(import.meta.url).pathname)
const fixtures = join(here, '..', '..', 'test', 'fixtures', 'harness')
/** How long one harness turn may take on a busy machine. */
const TURN_MS = 180_000

async function buildTree(base: string, entries: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(entries)) {
    const path = join(base, ...rel.split('/'))
    if (rel.endsWith('/')) await mkdir(path, { recursive: true })
    else {
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, text)
    }
  }
}

/** Harnesses that walk up to the file-system root would read a stray AGENTS.md above the temp directory: refuse. */
export async function checkAncestors(dir: string): Promise<void> {
  const names = ['AGENTS.md', 'AGENTS.MD', 'CLAUDE.md', 'CLAUDE.MD', 'GEMINI.md', 'CONTEXT.md']
  for (let d = dirname(dir); ; d = dirname(d)) {
    for (const name of names) {
      if (await stat(join(d, name)).catch(() => undefined))
        throw new Error(
          `${join(d, name)} lies above the temporary directory and would be read; remove it or set TMPDIR`,
        )
    }
    if (d === parse(d).root) return
  }
}

export async function install(recorder: HarnessRecorder, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'package.json'), '{"private":true}\n')
  const spec = `${recorder.pkg}@${recorder.version}`
  console.log(`installing ${spec}`)
  await run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', spec], {
    cwd: dir,
    maxBuffer: 1 << 26,
  })
  return join(dir, 'node_modules', ...recorder.bin.split('/'))
}

/** A recorder's fixture directory name: `pi@1.6.0`. */
function recording(recorder: HarnessRecorder): string {
  return `${recorder.mode}@${recorder.version}`
}

/** Where one run's tree and home lay: the paths that recordings write as `<ROOT>` and `<HOME>`. */
export interface RunPaths {
  root: string
  home: string
}

/** `text` with the run's tree written as `<ROOT>` and its home as `<HOME>`. */
export function toPlaceholders(text: string, { root, home }: RunPaths): string {
  return text.split(root).join(ROOT).split(home).join(HOME)
}

/** How `recordTree` runs. */
export interface RecordTreeOptions {
  /** Also write every captured request beside the tree (`requests.json`), for reading a new harness version. */
  raw?: boolean
  /** Where `<mode>@<version>/` goes; default: the fixtures. */
  out?: string
  /** Let the harness finish (and send whatever it sends after the turn) instead of stopping it at the turn. */
  untilExit?: boolean
  /** Run it on its WebSocket transport (a recorder with `websocket`). */
  websocket?: boolean
  /** The built `sysprompt` command (`dist/bin/sysprompt.cjs`): run the harness through `sysprompt record` (`through-record.ts`). */
  through?: string
}

/** What one run captured: every request the mock received, in order, and where the run's tree and home lay. */
export interface TreeRun extends RunPaths {
  requests: readonly CapturedRequest[]
  /** With `through`: record's summary and drift verdict lines. */
  record?: string[]
}

/** Runs `recorder` once on `tree` and writes what it sent under `out/<mode>@<version>/` (default: the fixtures). */
export async function recordTree(
  recorder: HarnessRecorder,
  bin: string,
  tree: HarnessTree,
  work: string,
  { raw = false, out = fixtures, untilExit = false, websocket = false, through }: RecordTreeOptions = {},
): Promise<TreeRun> {
  const base = await realpath(await mkdtemp(join(work, `${tree.name}-`)))
  const root = join(base, 'tree')
  const home = join(base, 'home')
  if (tree.from !== undefined)
    await cp(join(fixtures, tree.from), root, { recursive: true, verbatimSymlinks: true })
  await buildTree(root, tree.files)
  await buildTree(home, withRoot(tree.home, root))
  await mkdir(home, { recursive: true })
  const cwd = join(root, ...tree.cwd.split('/').filter(Boolean))
  const mock = await startMockModelServer()
  const baseEnv = { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', CI: '1', TERM: 'dumb' }
  const wrapped = through !== undefined && pointsItself(recorder.mode)
  const listener =
    through !== undefined && !wrapped
      ? await startRecordListen(through, recorder.mode, mock.url, base, baseEnv)
      : undefined
  try {
    const harnessConfig = tree.harnessConfig?.[recorder.mode] ?? []
    const { args, env } = await recorder.prepare({
      home,
      cwd,
      mockUrl: listener?.url ?? mock.url,
      harnessConfig,
      websocket,
      viaRecord: wrapped,
    })
    const own = recorder.native === true ? [bin] : [process.execPath, bin]
    const [file, ...prefix] = wrapped
      ? [process.execPath, ...recordPrefix(through, recorder.mode, base, mock.url), ...own]
      : own
    const child = spawn(file!, [...prefix, ...args], {
      cwd,
      env: { ...baseEnv, ...(wrapped ? recordEnv(base) : {}), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    // Closed, not only exited: record writes its summary and verdict last.
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    const request = await Promise.race([
      mock.next(recorder.request, TURN_MS),
      exited.then(async (code) => {
        // It may have exited right after the request that counts.
        const found = mock.requests.find((r) => recorder.request(r.path, r.body))
        if (found !== undefined) return found
        throw new Error(`${recorder.mode} exited (${code}) before calling the model:\n${output.slice(-2000)}`)
      }),
    ])
    if (untilExit) await deadline(exited, TURN_MS)
    child.kill()
    await exited
    if (raw) {
      const readable = mock.requests.map(({ method, path, headers, body }) => ({
        method,
        path,
        headers,
        body,
      }))
      await writeFile(join(base, 'requests.json'), JSON.stringify(readable, null, 2))
    }
    const parts = recorder.extract(request.body, tree)
    const dir = join(out, recording(recorder))
    await mkdir(dir, { recursive: true })
    for (const [placement, text] of Object.entries(parts))
      await writeFile(join(dir, `${tree.name}.${placement}.txt`), toPlaceholders(text, { root, home }))
    await writeFile(join(dir, `${tree.name}.parts.json`), `${JSON.stringify(Object.keys(parts))}\n`)
    console.log(`  ${recorder.mode} ${tree.name}: ${Object.keys(parts).join(', ') || 'no instruction part'}`)
    const record =
      listener !== undefined ? recordLines(await listener.stop()) : wrapped ? recordLines(output) : undefined
    return { requests: [...mock.requests], root, home, ...(record !== undefined && { record }) }
  } finally {
    await listener?.stop()
    await mock.close()
  }
}

/** Waits for `done`, or `ms` at most (a harness that hangs after its turn is stopped by the caller). */
async function deadline(done: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))
  await Promise.race([done, late])
  clearTimeout(timer)
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      trees: { type: 'string' },
      keep: { type: 'boolean' },
      raw: { type: 'boolean' },
    },
  })
  const only = values.only?.split(',')
  // --trees a,b records only those trees (a new tree, or one whose files changed).
  const trees = values.trees?.split(',')
  // --raw (with --keep) also writes every captured request beside each tree, for reading a new harness version.
  const keep = values.keep === true || values.raw === true
  const raw = values.raw === true
  const work = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-record-')))
  try {
    await checkAncestors(work)
    // --only takes modes (pi: every pi recorder) or recordings (pi@1.6.0).
    const chosen = RECORDERS.filter(
      (r) => only === undefined || only.includes(r.mode) || only.includes(recording(r)),
    )
    for (const recorder of chosen) {
      const bin = await install(recorder, join(work, 'packages', recording(recorder)))
      // One harness at a time, one tree at a time: the machine may be small and busy.
      for (const tree of TREES.filter(
        (t) => (trees === undefined || trees.includes(t.name)) && recordedOn(t, recording(recorder)),
      ))
        await recordTree(recorder, bin, tree, work, { raw })
    }
  } finally {
    if (keep) console.log(`kept ${work}`)
    else await rm(work, { recursive: true, force: true })
  }
  console.log(`fixtures in ${fixtures}: ${(await readdir(fixtures)).join(', ')}`)
}

// Run as a script (`npx tsx scripts/record-harness/record.ts`); `follow.ts` imports the steps above.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
