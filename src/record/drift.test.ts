import { appendFile, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { TREES, withRoot } from '../../test/fixtures/harness/trees.js'
import type { TrafficFixture } from '../../test/fixtures/traffic/traffic.js'
import { checkDrift, driftText } from './drift.js'
import { parseRequest } from './parse/index.js'
import type { RecordHarness } from './pointing.js'

// The drift check on what the five published harnesses really sent
// (test/fixtures/traffic, captured on the `nested` tree): on the same tree
// the view matches; with an instruction file changed between the capture
// and the check, the difference is named by the file and its line.

const made: string[] = []
afterAll(() => Promise.all(made.map((d) => rm(d, { recursive: true, force: true }))))

const CAPTURES: Record<RecordHarness, string> = {
  claude: 'claude@2.1.332/1.json',
  codex: 'codex@0.171.0/1.json',
  gemini: 'gemini@0.61.0/1.json',
  opencode: 'opencode@1.18.33/2.json',
  pi: 'pi@1.6.0/1.json',
}

async function build(base: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const path = join(base, rel)
    if (rel.endsWith('/')) await mkdir(path, { recursive: true })
    else {
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, text)
    }
  }
}

/** The `nested` tree and its home, built afresh; the capture with their paths in place of its placeholders. */
async function setUp(harness: RecordHarness) {
  const tree = TREES.find((t) => t.name === 'nested')!
  const base = await realpath(await mkdtemp(join(tmpdir(), 'sysprompt-drift-')))
  made.push(base)
  const root = join(base, 'tree')
  const home = join(base, 'home')
  await build(root, tree.files)
  await mkdir(home, { recursive: true })
  await build(home, withRoot(tree.home, root))
  const file = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'traffic', CAPTURES[harness])
  const fixture = JSON.parse(await readFile(file, 'utf8')) as TrafficFixture
  const body = fixture.request.body.split('<ROOT>').join(root).split('<HOME>').join(home)
  const request = parseRequest(
    /generatecontent/i.test(fixture.request.path) ? 'gemini.streamGenerateContent' : endpointOf(harness),
    body,
    {},
    { path: fixture.request.path },
  )
  if (!request.ok) throw new Error(request.reason)
  return {
    root,
    home,
    cwd: join(root, tree.cwd),
    sent: request.parts.map((p) => p.text),
    version: fixture.version,
  }
}

function endpointOf(harness: RecordHarness) {
  return harness === 'claude'
    ? ('anthropic.messages' as const)
    : harness === 'codex'
      ? ('openai.responses' as const)
      : ('openai.chat.completions' as const)
}

describe('the drift check on the five harnesses', () => {
  it.each<RecordHarness>(['claude', 'codex', 'gemini', 'opencode', 'pi'])(
    '%s: matches on the tree it was captured on, and names the file and line of a change',
    async (harness) => {
      const { root, home, cwd, sent, version } = await setUp(harness)
      const same = await checkDrift({ harness, version, cwd, home, sent })
      expect(same.verdict, driftText(same)).toBe('matches')
      // An instruction file every harness reads here, changed after the capture: its new last line is the difference.
      const changed =
        harness === 'claude'
          ? join(root, 'CLAUDE.md')
          : join(cwd, harness === 'gemini' ? 'GEMINI.md' : 'AGENTS.md')
      await appendFile(changed, 'A line added after the capture.\n')
      const drift = await checkDrift({ harness, version, cwd, home, sent })
      expect(drift.verdict).toBe('differs')
      expect(drift.difference?.file).toBe(changed)
      expect(drift.difference?.line).toBeGreaterThan(1)
      expect(driftText(drift)).toContain(`${changed}:`)
    },
  )

  it.each<RecordHarness>(['claude', 'codex'])(
    '%s: a file sysprompt expects that the harness did not send is named',
    async (harness) => {
      const { root, home, cwd, sent, version } = await setUp(harness)
      const added = harness === 'claude' ? join(cwd, 'CLAUDE.md') : join(root, 'AGENTS.md')
      await writeFile(added, harness === 'claude' ? 'A new package file.\n' : 'Root rules, rewritten.\n')
      const drift = await checkDrift({ harness, version, cwd, home, sent })
      expect(drift.verdict).toBe('differs')
      expect(drift.difference?.file).toBe(added)
    },
  )

  it('a directory that cannot be read is not checked, saying why', async () => {
    const { root, home, sent } = await setUp('claude')
    const v = await checkDrift({ harness: 'claude', cwd: join(root, 'gone'), home, sent })
    expect(v.verdict).toBe('unavailable')
    expect(driftText(v)).toContain('not checked')
  })

  it('a newer version is compared with the newest model, saying so', async () => {
    const { home, cwd, sent } = await setUp('claude')
    const v = await checkDrift({ harness: 'claude', version: '99.0.0', cwd, home, sent })
    expect(v.verdict).toBe('matches')
    expect(v.modelledAs).toBeDefined()
    expect(driftText(v)).toContain('newest model')
  })
})
