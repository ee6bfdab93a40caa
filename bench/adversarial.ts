/**
 * Adversarial repositories (issue 30): instruction discovery on inputs an
 * attacker would commit, each side by side with an ordinary input of the
 * same size, in interleaved rounds; the figure is the ratio of the medians
 * (goal: at most 10×).
 *
 * - imports 5×5: five files a level, five levels, each importing all five
 *   of the next (3 125 import paths through 25 files), in `sysprompt` and
 *   `gemini` modes, against 25 files imported once each whose text adds up
 *   to the same expanded size;
 * - 100 KB of backticks (a run of 50 000, then 50 000 letters) in the
 *   Claude and Gemini import scanners, against 100 KB of prose;
 * - 5 000 nested `[` in `opencode.json`, against a flat `opencode.json` of
 *   the same size (a failure is printed, not thrown: the depth limit of the
 *   JSONC parser is another part of the issue);
 * - 200 opencode `instructions` globs (`**` each) over 2 000 directories,
 *   against 200 globs of one directory each over the same tree.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { discoverInstructions } from '../src/node/instructions/discover.js'
import type { DiscoverInstructionsOptions } from '../src/node/instructions/discovery-options.js'
import { findClaudeImports } from '../src/node/instructions/modes/claude-imports.js'
import { codeRegions, findGeminiImports } from '../src/node/instructions/modes/gemini-imports.js'
import { heading, ms, table, wrap } from './format.js'
import { interleave, ratioWithSpread } from './rounds.js'

/** Writes `files` (relative path → text) under a fresh directory holding `.git`; returns it. */
function tree(base: string, name: string, files: Record<string, string>): string {
  const root = join(base, name)
  mkdirSync(join(root, '.git'), { recursive: true })
  for (const [rel, text] of Object.entries(files)) {
    const path = join(root, rel)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, text)
  }
  return root
}

/** `k` files on each of `levels` levels, each importing every file of the next; `top` imports the first level. */
function layered(top: string, k: number, levels: number): Record<string, string> {
  const refs = (level: number, prefix: string) =>
    Array.from({ length: k }, (_, i) => `@${prefix}l${level}/f${i}.md`).join('\n')
  const files: Record<string, string> = { [top]: `${refs(1, '')}\n` }
  for (let level = 1; level <= levels; level++)
    for (let i = 0; i < k; i++)
      files[`l${level}/f${i}.md`] =
        `level ${level} file ${i}\n${level < levels ? `${refs(level + 1, '../')}\n` : ''}`
  return files
}

/** `count` files imported once each by `top`, of about `each` bytes of prose apiece. */
function flat(top: string, count: number, each: number): Record<string, string> {
  const files: Record<string, string> = {
    [top]: `${Array.from({ length: count }, (_, i) => `@p/f${i}.md`).join('\n')}\n`,
  }
  const line = 'Run the tests before you commit, and keep each change small.\n'
  for (let i = 0; i < count; i++)
    files[`p/f${i}.md`] = line.repeat(Math.max(1, Math.round(each / line.length)))
  return files
}

const PROSE = 'The quick brown fox jumps over the lazy dog; see `docs/a.md` and the notes. '

function prose(size: number): string {
  return PROSE.repeat(Math.ceil(size / PROSE.length)).slice(0, size)
}

interface Pair {
  input: string
  what: string
  adversarial: () => Promise<unknown> | unknown
  ordinary: () => Promise<unknown> | unknown
}

export async function runAdversarialBench({ quick }: { quick: boolean }): Promise<void> {
  console.log(heading('Adversarial repositories against ordinary ones of the same size'))
  const base = mkdtempSync(join(tmpdir(), 'sysprompt-bench-adversarial-'))
  try {
    const home = join(base, 'home')
    mkdirSync(home)
    const discover = (cwd: string, options: Partial<DiscoverInstructionsOptions>) => () =>
      discoverInstructions({ cwd, home, tokenizer: 'estimate', maxBytes: 64 * 1024 * 1024, ...options })
    const pairs: Pair[] = []

    // Imports 5×5, and 25 flat files of the same expanded size.
    for (const [mode, top] of [
      ['sysprompt', 'AGENTS.md'],
      ['gemini', 'GEMINI.md'],
    ] as const) {
      const deep = tree(base, `imports-${mode}`, layered(top, 5, 5))
      const size = (await discoverInstructions({ cwd: deep, home, mode, maxBytes: 64 * 1024 * 1024 })).text
        .length
      const shallow = tree(base, `flat-${mode}`, flat(top, 25, size / 25))
      pairs.push({
        input: `imports 5×5 levels (${mode})`,
        what: `${Math.round(size / 1024)} KB expanded`,
        adversarial: discover(deep, { mode }),
        ordinary: discover(shallow, { mode }),
      })
    }

    // 100 KB of backticks, through each scanner and through discovery.
    const ticks = `x${'`'.repeat(50_000)}${'a'.repeat(50_000)}\n`
    const plain = `${prose(ticks.length - 1)}\n`
    pairs.push({
      input: '100 KB of backticks (scanners)',
      what: 'Claude + Gemini',
      adversarial: () =>
        findClaudeImports(ticks).length + codeRegions(ticks).length + findGeminiImports(ticks).length,
      ordinary: () =>
        findClaudeImports(plain).length + codeRegions(plain).length + findGeminiImports(plain).length,
    })
    for (const [mode, top] of [
      ['claude', 'CLAUDE.md'],
      ['gemini', 'GEMINI.md'],
    ] as const) {
      const hostile = tree(base, `ticks-${mode}`, { [top]: ticks })
      const calm = tree(base, `prose-${mode}`, { [top]: plain })
      pairs.push({
        input: `100 KB of backticks (${mode} discovery)`,
        what: top,
        adversarial: discover(hostile, { mode }),
        ordinary: discover(calm, { mode }),
      })
    }

    // 5 000 nested [ in opencode.json.
    const nested = `{"instructions": ${'['.repeat(5000)}${']'.repeat(5000)}}`
    const flatJson = `{"instructions": [], "x": [${Array.from({ length: 2500 }, () => '1').join(',')}]}`
    const deepJson = tree(base, 'nested-json', { 'opencode.json': nested, 'AGENTS.md': 'a\n' })
    const flatDir = tree(base, 'flat-json', {
      'opencode.json': flatJson.padEnd(nested.length),
      'AGENTS.md': 'a\n',
    })
    const nestedCase = discover(deepJson, { mode: 'opencode' })
    let nestedFailure: string | undefined
    try {
      await nestedCase()
    } catch (error) {
      nestedFailure = `${(error as Error).name}: ${(error as Error).message}`
    }
    if (nestedFailure === undefined)
      pairs.push({
        input: '5 000 nested [ in opencode.json',
        what: `${Math.round(nested.length / 1024)} KB`,
        adversarial: nestedCase,
        ordinary: discover(flatDir, { mode: 'opencode' }),
      })

    // 200 globs over 2 000 directories.
    const dirs: Record<string, string> = {}
    for (let i = 0; i < 2000; i++) dirs[`d${String(i).padStart(4, '0')}/notes.md`] = `notes ${i}\n`
    const globs = tree(base, 'globs', dirs)
    const hostileHome = join(base, 'home-globs')
    const calmHome = join(base, 'home-dirs')
    const listing = (where: string, instructions: string[]) => {
      mkdirSync(join(where, '.config', 'opencode'), { recursive: true })
      writeFileSync(join(where, '.config', 'opencode', 'opencode.json'), JSON.stringify({ instructions }))
    }
    listing(
      hostileHome,
      Array.from({ length: 200 }, (_, i) => `**/nothing-${i}.md`),
    )
    listing(
      calmHome,
      Array.from({ length: 200 }, (_, i) => `d${String(i).padStart(4, '0')}/*.txt`),
    )
    const globsOf = (where: string) => () =>
      discoverInstructions({
        cwd: globs,
        home: where,
        mode: 'opencode',
        harnessVersion: '1.1.34',
        tokenizer: 'estimate',
      })
    pairs.push({
      input: '200 globs × 2 000 directories',
      what: '** each vs one directory each',
      adversarial: globsOf(hostileHome),
      ordinary: globsOf(calmHome),
    })

    const rounds = quick ? 3 : 7
    const rows: string[][] = []
    let worst = 0
    for (const pair of pairs) {
      const results = await interleave(
        [
          { name: 'adversarial', run: async () => void (await pair.adversarial()) },
          { name: 'ordinary', run: async () => void (await pair.ordinary()) },
        ],
        rounds,
      )
      const a = results.get('adversarial')!
      const o = results.get('ordinary')!
      worst = Math.max(worst, a.median / o.median)
      rows.push([pair.input, pair.what, ms(a.median), ms(o.median), ratioWithSpread(a, o)])
    }
    console.log(
      table(['input', '', 'adversarial ms', 'ordinary ms', 'ratio'], rows, ['l', 'l', 'r', 'r', 'l']),
    )
    if (nestedFailure !== undefined)
      console.log(`5 000 nested [ in opencode.json: discovery failed, not timed: ${nestedFailure}`)
    console.log(
      wrap(
        `goal: each ratio at most 10×; worst ${worst.toFixed(2)}×. Medians over ${rounds} interleaved rounds after a warm-up; ` +
          'each run is a whole discovery (reads, walk, imports, views), in process.',
      ),
    )
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
}
