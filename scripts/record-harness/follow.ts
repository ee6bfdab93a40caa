/**
 * The release-following routine (issue 32): for each harness, install its
 * newest release from npm, run it once through `sysprompt record` (build
 * first: `npm run build`) and print record's summary and drift verdict;
 * when the release is newer than the newest modelled one, record every
 * fixture tree through it (the same capture step as `record.ts`) and print
 * whether it sends what the newest modelled version sends, or the first
 * difference (tree, placement, line).
 *
 * NOT RUN IN CI: it installs the harness packages (into a temporary
 * directory, deleted afterwards) and runs each against the loopback mock.
 *
 *   npx tsx scripts/record-harness/follow.ts [--only pi,codex] [--write]
 *
 * `--write` keeps the new release's recordings as
 * `test/fixtures/harness/<mode>@<version>/`: when a release differs, that
 * is where its new versioned mode starts (a new profile in
 * `src/node/instructions/modes/profiles.ts`, never an edit of the old one).
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { parseArgs, promisify } from 'node:util'
import { recordedOn, TREES } from '../../test/fixtures/harness/trees.js'
import { firstRecordingDifference, type Recordings } from './compare.js'
import { type HarnessRecorder, newestRecorders } from './harnesses.js'
import { checkAncestors, install, recordTree } from './record.js'

const run = promisify(execFile)
const fixtures = join(dirname(new URL(import.meta.url).pathname), '..', '..', 'test', 'fixtures', 'harness')
/** The built command (`npm run build`), which the routine records through. */
const CLI = join(dirname(new URL(import.meta.url).pathname), '..', '..', 'dist', 'bin', 'sysprompt.cjs')

/** The newest release of a package on the registry. */
async function newestRelease(pkg: string): Promise<string> {
  const { stdout } = await run('npm', ['view', pkg, 'version'], { maxBuffer: 1 << 20 })
  return stdout.trim()
}

/** The recordings in `dir` (one `<tree>.parts.json` and a text per placement each). */
async function readRecordings(dir: string): Promise<Recordings> {
  const out = new Map<string, { placements: string[]; texts: Map<string, string> }>()
  const names = await readdir(dir).catch(() => [] as string[])
  for (const name of names.filter((n) => n.endsWith('.parts.json'))) {
    const tree = name.slice(0, -'.parts.json'.length)
    const placements: string[] = JSON.parse(await readFile(join(dir, name), 'utf8'))
    const texts = new Map<string, string>()
    for (const p of placements) texts.set(p, await readFile(join(dir, `${tree}.${p}.txt`), 'utf8'))
    out.set(tree, { placements, texts })
  }
  return out
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { only: { type: 'string' }, write: { type: 'boolean' } } })
  const work = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-follow-')))
  const lines: string[] = []
  try {
    await checkAncestors(work)
    for (const modelled of newestRecorders(values.only?.split(','))) {
      const newest = await newestRelease(modelled.pkg)
      const label = `${modelled.mode} ${newest} (${modelled.pkg})`
      const recorder: HarnessRecorder = { ...modelled, version: newest }
      const out = values.write === true ? fixtures : join(work, 'recordings')
      let bin: string
      try {
        bin = await install(recorder, join(work, 'packages', recorder.mode))
        // Recorded through `sysprompt record` on one tree: a recording in its ledger and its drift verdict.
        const nested = TREES.find((t) => t.name === 'nested')!
        const through = await recordTree(recorder, bin, nested, work, {
          out: join(work, 'through'),
          through: CLI,
        })
        for (const line of through.record ?? []) lines.push(`${label}: ${line}`)
      } catch (error) {
        lines.push(
          `${label}: could not be run through sysprompt record: ${(error as Error).message.split('\n')[0]}`,
        )
        continue
      }
      if (newest === modelled.version) {
        lines.push(`${label}: the newest modelled version itself`)
        continue
      }
      try {
        // The trees the modelled version was recorded on, so the two sets compare.
        const modelledOn = `${modelled.mode}@${modelled.version}`
        for (const tree of TREES.filter((t) => recordedOn(t, modelledOn)))
          await recordTree(recorder, bin, tree, work, { out })
      } catch (error) {
        // A release that no longer runs as the recorder drives it is a difference too.
        lines.push(`${label}: could not be recorded: ${(error as Error).message.split('\n')[0]}`)
        continue
      }
      const difference = firstRecordingDifference(
        await readRecordings(join(fixtures, `${modelled.mode}@${modelled.version}`)),
        await readRecordings(join(out, `${recorder.mode}@${newest}`)),
      )
      lines.push(
        difference === undefined
          ? `${label}: same as the newest modelled version (${modelled.version})`
          : `${label}: differs from ${modelled.version}: ${difference}`,
      )
    }
  } finally {
    await rm(work, { recursive: true, force: true })
  }
  console.log(lines.join('\n'))
}

await main()
