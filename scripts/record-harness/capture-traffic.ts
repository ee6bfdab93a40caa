/**
 * Captures every request the published harnesses send in one run, and what
 * the mock model server answered, as the traffic fixtures
 * (`test/fixtures/traffic/<mode>@<version>/<n>.json`, described in
 * `test/fixtures/traffic/traffic.ts`) that the recorder's tests replay.
 *
 * NOT RUN IN CI: like `record.ts` (whose steps it runs), it installs each
 * harness package from npm into a temporary directory and runs it once
 * against the mock on 127.0.0.1, this time until it exits by itself.
 *
 *   eval "$(bash scripts/node.sh 22)"
 *   npx tsx scripts/record-harness/capture-traffic.ts [--only claude,codex] [--tree nested] [--out DIR]
 *
 * Each mode's newest modelled version runs (`--only` takes modes). Paths of
 * the run are written as placeholders (`<ROOT>` the tree, `<HOME>` the
 * home, `<WORK>` the temporary directory, `<ROOT-AS-NAME>` the tree's path
 * as Claude Code names a directory after it); credential headers and `key=`
 * values as `REDACTED`. A file that still looks like it carries a
 * credential, or names this machine's home or user, is not written.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { homedir, tmpdir, userInfo } from 'node:os'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { type HarnessTree, TREES } from '../../test/fixtures/harness/trees.js'
import {
  fixtureProblems,
  REDACTED,
  ROOT_AS_NAME,
  redactHeaders,
  redactPath,
  type TrafficFixture,
  WORK,
} from '../../test/fixtures/traffic/traffic.js'
import { type HarnessRecorder, newestRecorders } from './harnesses.js'
import type { CapturedRequest } from './mock-server.js'
import { checkAncestors, install, type RunPaths, recordTree, toPlaceholders } from './record.js'

const here = dirname(new URL(import.meta.url).pathname)
const fixtures = join(here, '..', '..', 'test', 'fixtures', 'traffic')

/** The body as a fixture holds it: its text with the run's paths as placeholders, or base64 when compressed or not UTF-8. */
function fixtureBody(
  request: CapturedRequest,
  paths: RunPaths,
  work: string,
): Pick<TrafficFixture['request'], 'bodyEncoding' | 'body'> {
  const encoded = request.headers.some(([name]) => name.toLowerCase() === 'content-encoding')
  if (!encoded) {
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(request.bytes)
      return { bodyEncoding: 'utf8', body: placeholders(text, paths, work) }
    } catch {
      // Not UTF-8: kept as bytes.
    }
  }
  return { bodyEncoding: 'base64', body: request.bytes.toString('base64') }
}

/**
 * `text` with the run's paths as placeholders: those of `toPlaceholders`,
 * the temporary directory as `<WORK>`, and the tree's path as Claude Code
 * names its project directory after it (every character but a letter or
 * digit a dash) as `<ROOT-AS-NAME>`.
 */
function placeholders(text: string, paths: RunPaths, work: string): string {
  const asName = paths.root.replace(/[^A-Za-z0-9]/g, '-')
  return toPlaceholders(text, paths).split(work).join(WORK).split(asName).join(ROOT_AS_NAME)
}

/** The fixture of one captured request. */
export function trafficFixture(
  recorder: HarnessRecorder,
  tree: string,
  request: CapturedRequest,
  paths: RunPaths,
  work: string,
): TrafficFixture {
  const { answer } = request
  const headers = redactHeaders(request.headers).map(([n, v]): [string, string] => [
    n,
    placeholders(v, paths, work),
  ])
  return {
    harness: recorder.mode,
    version: recorder.version,
    tree,
    transport: request.transport,
    ...(request.connection === undefined ? {} : { connection: request.connection }),
    request: {
      method: request.method,
      path: placeholders(redactPath(request.path), paths, work),
      headers,
      ...fixtureBody(request, paths, work),
    },
    response: {
      status: answer.status,
      headers: answer.headers,
      streamed: answer.streamed,
      chunks: answer.chunks,
    },
  }
}

/** Why a fixture's text must not be written: a credential-looking value, or this machine's home or user name. */
function refusals(fixture: TrafficFixture): string[] {
  const text = JSON.stringify(fixture)
  // As paths only: Codex names its main agent `/root`, which is no home directory.
  const machine = [`${homedir()}/`, `/${userInfo().username}/`].filter(
    (s) => s.length > 3 && text.includes(s),
  )
  return [...fixtureProblems(fixture), ...machine.map((s) => `names this machine (${s})`)]
}

/** Runs `recorder` once on `tree` and writes every request it sent as `dir/<n>.json` (the folder replaced). */
async function captureRun(
  recorder: HarnessRecorder,
  bin: string,
  tree: HarnessTree,
  { work, dir, websocket }: { work: string; dir: string; websocket: boolean },
): Promise<string> {
  // The instruction recordings of this run go to the work directory: only the traffic is kept.
  const options = { out: join(work, 'recordings'), untilExit: true, websocket }
  const run = await recordTree(recorder, bin, tree, work, options)
  const made = run.requests.map((r) => trafficFixture(recorder, tree.name, r, run, work))
  made.forEach((f, i) => {
    const why = refusals(f)
    if (why.length > 0)
      throw new Error(`${recorder.mode} request ${i + 1} (${f.request.path}): ${why.join('; ')}`)
  })
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir, { recursive: true })
  for (const [i, f] of made.entries())
    await writeFile(join(dir, `${i + 1}.json`), `${JSON.stringify(f, null, 2)}\n`)
  const ways = made.map((f) => {
    const on = f.transport === 'websocket' ? `websocket connection ${f.connection}` : 'http'
    return `${f.request.method} ${f.request.path} (${on}, ${f.response.streamed ? 'streamed' : 'not streamed'})`
  })
  return `${recorder.mode}@${recorder.version}: ${made.length} requests: ${ways.join('; ')}`
}

/** Captures `recorder`'s traffic on `tree`: over HTTP, and over its WebSocket transport too where it has one. */
async function captureHarness(
  recorder: HarnessRecorder,
  tree: HarnessTree,
  work: string,
  out: string,
): Promise<string[]> {
  const bin = await install(recorder, join(work, 'packages', `${recorder.mode}@${recorder.version}`))
  const dir = join(out, `${recorder.mode}@${recorder.version}`)
  const lines = [await captureRun(recorder, bin, tree, { work, dir, websocket: false })]
  if (recorder.websocket === true)
    lines.push(await captureRun(recorder, bin, tree, { work, dir: join(dir, 'websocket'), websocket: true }))
  return lines
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { only: { type: 'string' }, tree: { type: 'string' }, out: { type: 'string' } },
  })
  const out = values.out ?? fixtures
  const tree = TREES.find((t) => t.name === (values.tree ?? 'nested'))
  if (tree === undefined)
    throw new Error(`no fixture tree named ${values.tree} in test/fixtures/harness/trees.ts`)
  const work = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-traffic-')))
  const lines: string[] = []
  try {
    await checkAncestors(work)
    // One harness at a time: the machine may be small and busy.
    for (const recorder of newestRecorders(values.only?.split(',')))
      lines.push(...(await captureHarness(recorder, tree, work, out)))
  } finally {
    await rm(work, { recursive: true, force: true })
  }
  console.log(lines.join('\n'))
  console.log(`credentials written as ${REDACTED}`)
}

await main()
