import { readFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { propertyRuns } from '../../../test/property-runs.test-helper.js'
import { type FileSystemAdapter, nodeAdapters } from '../adapters.js'
import { createContext } from './create-context.js'
import { discoverInstructions } from './discover.js'
import type { InstructionMode } from './discovery-options.js'
import { explainInstructions } from './explain.js'
import { emptyHome, type FixtureEntry, fixtureTree, removeFixtures } from './fixtures.test-helper.js'
import { findImportLines, inlineImports, MAX_IMPORT_DEPTH } from './imports.js'
import { findGeminiImports, inlineGeminiImports } from './modes/gemini-imports.js'
import { isRefusal, loadFile } from './read.js'

afterAll(removeFixtures)

/** The real file system, counting how often each file is read. */
function countingFs(): { fs: FileSystemAdapter; reads: Map<string, number> } {
  const real = nodeAdapters().fs
  const reads = new Map<string, number>()
  return {
    reads,
    fs: {
      realpath: (p) => real.realpath(p),
      stat: (p) => real.stat(p),
      readFile: (p, max) => {
        reads.set(p, (reads.get(p) ?? 0) + 1)
        return real.readFile(p, max)
      },
    },
  }
}

/**
 * `k` files on each of `levels` levels, each importing every file of the
 * next level: k^levels paths through `levels * k` files. `top` names the
 * top file (AGENTS.md, GEMINI.md, CLAUDE.md).
 */
function layered(top: string, k: number, levels: number): Record<string, FixtureEntry> {
  const refs = (level: number, prefix: string) =>
    Array.from({ length: k }, (_, i) => `@${prefix}l${level}/f${i}.md`).join('\n')
  const tree: Record<string, FixtureEntry> = { '.git': { dir: true }, [top]: `${refs(1, '')}\n` }
  for (let level = 1; level <= levels; level++) {
    for (let i = 0; i < k; i++) {
      const body = level < levels ? `${refs(level + 1, '../')}\n` : ''
      tree[`l${level}/f${i}.md`] = `level ${level} file ${i}\n${body}`
    }
  }
  return tree
}

const codes = (found: { diagnostics: { code: string }[] }) => found.diagnostics.map((d) => d.code)

describe('the expansion budget', () => {
  it.each([
    ['sysprompt', 'AGENTS.md'],
    ['gemini', 'GEMINI.md'],
  ] as [InstructionMode, string][])(
    '%s mode: files importing each other k^5 times over read each file once and stop at the byte budget',
    async (mode, top) => {
      // 8 files a level, 5 levels: 32 768 import paths (the issue's hang), 40 files.
      const repo = await fixtureTree(layered(top, 8, 5))
      const { fs, reads } = countingFs()
      const found = await discoverInstructions({
        cwd: repo,
        home: await emptyHome(),
        mode,
        fs,
        maxBytes: 64 * 1024 * 1024,
        maxExpandedBytes: 256 * 1024,
      })
      expect(Math.max(...reads.values())).toBe(1)
      // At most the 40 files and the top one; past the budget nothing more is read.
      expect(reads.size).toBeLessThanOrEqual(41)
      const budget = found.diagnostics.filter((d) => d.code === 'expansion-budget')
      expect(budget).toHaveLength(1)
      expect(budget[0]!.message).toMatch(
        /^l\d\/f\d\.md \(imported by l\d\/f\d\.md\) is past the expansion budget/,
      )
      expect(found.text).toContain(mode === 'gemini' ? '[withheld: l' : '[not read: l')
      expect(found.text).toContain('past the expansion budget')
      // The budget bounds the text: 256 KiB of files, plus the marks and (Gemini) the import comments.
      expect(found.text.length).toBeLessThan(2 * 1024 * 1024)
    },
  )

  it('gemini mode: a withheld import says Gemini CLI would send it', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'GEMINI.md': 'top @a.md @b.md\n',
      'a.md': 'A'.repeat(100),
      'b.md': 'B'.repeat(100),
    })
    const found = await discoverInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'gemini',
      maxExpandedBytes: 150,
    })
    expect(found.text).toContain('A'.repeat(100))
    expect(found.text).toContain('[withheld: b.md, past the expansion budget; Gemini CLI would send it]')
    expect(found.harness.parts.map((p) => p.text).join('')).toContain('[withheld: b.md')
    const why = await explainInstructions({
      cwd: repo,
      home: await emptyHome(),
      mode: 'gemini',
      maxExpandedBytes: 150,
      file: 'b.md',
    })
    expect(why.status).toBe('skipped')
    expect(why.code).toBe('over-budget')
    expect(why.reason).toContain('past the expansion budget')
  })

  it('a 900 KB file imported 8 000 times is read once and stops at the budget, with a diagnostic', async () => {
    const big = `BIG-START\n${`${'x'.repeat(99)}\n`.repeat(9000)}`
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': '@big.md\n'.repeat(8000),
      'GEMINI.md': '@big.md\n'.repeat(8000),
      'CLAUDE.md': '@big.md\n'.repeat(8000),
      'big.md': big,
    })
    for (const mode of ['sysprompt', 'gemini', 'claude'] as const) {
      const { fs, reads } = countingFs()
      const found = await discoverInstructions({
        cwd: repo,
        home: await emptyHome(),
        mode,
        fs,
        maxBytes: 64 * 1024 * 1024,
      })
      expect(reads.get(join(repo, 'big.md'))).toBe(1)
      // Four copies fit 4 MiB; the rest are marks (Claude Code loads a file once, so it fits once).
      expect(found.text.split('BIG-START').length - 1).toBe(mode === 'claude' ? 1 : 4)
      expect(codes(found).includes('expansion-budget')).toBe(mode !== 'claude')
      expect(found.text.length).toBeLessThan(5 * 1024 * 1024)
    }
  })

  it('counts distinct files against maxExpandedFiles, the walk and the rules included', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': '@a.md\n@a.md\n@b.md\n@a.md\n',
      'a.md': 'A\n',
      'b.md': 'B\n',
    })
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), maxExpandedFiles: 2 })
    // AGENTS.md and a.md fit (a.md twice: one file); b.md is the third, and everything after it is withheld.
    expect(found.text).toContain(
      'A\nA\n[not read: b.md, past the expansion budget]\n[not read: a.md, past the expansion budget]\n',
    )
    const budget = found.diagnostics.find((d) => d.code === 'expansion-budget')
    expect(budget?.message).toContain('b.md (imported by AGENTS.md) is past the expansion budget')
    expect(budget?.message).toContain('its files are used up')
  })

  it('withholds a whole top-level file past the budget, and says so in explain', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'AGENTS.md': 'root\n',
      'sub/AGENTS.md': 'nearer\n',
    })
    const options = { cwd: join(repo, 'sub'), home: await emptyHome(), maxExpandedFiles: 1 }
    const found = await discoverInstructions(options)
    expect(found.text).toContain('root\n')
    expect(found.text).toContain('[not read: sub/AGENTS.md, past the expansion budget]')
    expect(found.files.map((f) => f.truncated)).toEqual([false, true])
    const why = await explainInstructions({ ...options, file: join(repo, 'sub', 'AGENTS.md') })
    expect(why.reason).toContain('past the expansion budget')
  })

  it('claude mode: a file named by many references is read once', async () => {
    const repo = await fixtureTree({
      '.git': { dir: true },
      'CLAUDE.md': '@a.md\n'.repeat(500),
      'a.md': '@CLAUDE.md\n@a.md\nA\n',
    })
    const { fs, reads } = countingFs()
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), mode: 'claude', fs })
    expect(reads.get(join(repo, 'a.md'))).toBe(1)
    expect(found.files.map((f) => f.path)).toEqual([join(repo, 'CLAUDE.md'), join(repo, 'a.md')])
  })

  it('reports a repeated finding once, however many paths reach it', async () => {
    const repo = await fixtureTree(layered('AGENTS.md', 3, 6))
    const found = await discoverInstructions({ cwd: repo, home: await emptyHome(), maxBytes: 1 << 30 })
    const deep = found.diagnostics.filter((d) => d.code === 'import-too-deep')
    // Each of the 3 files of level 5 imports each of the 3 of level 6 too deep: 9 findings, not 3^6.
    expect(deep).toHaveLength(9)
    expect(new Set(deep.map((d) => d.message)).size).toBe(9)
  })
})

/** Imports among files f0…f4 (and a missing one), as fast-check draws them: each file's list of targets. */
const graphs = fc.array(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }), {
  minLength: 5,
  maxLength: 5,
})

/** The files of a graph, each starting with a line of its own; targets are `fN.md` (f5 does not exist). */
function graphTree(graph: number[][], ref: (n: number) => string): Record<string, FixtureEntry> {
  const tree: Record<string, FixtureEntry> = { '.git': { dir: true } }
  graph.forEach((targets, i) => {
    tree[`f${i}.md`] = `file ${i}\n${targets.map((t) => `${ref(t)}\n`).join('')}`
  })
  return tree
}

/** Sysprompt mode's inlining as it was before reads and subtrees were shared: a direct recursion, for comparison. */
async function naiveSysprompt(path: string, depth: number, chain: string[]): Promise<string> {
  const text = await readFile(path, 'utf8')
  let out = ''
  let last = 0
  for (const line of findImportLines(text)) {
    out += text.slice(last, line.start)
    last = line.end
    const lineText = text.slice(line.start, line.end)
    const target = resolve(dirname(path), line.target)
    const exists = await readFile(target).then(
      () => true,
      () => false,
    )
    if (depth + 1 > MAX_IMPORT_DEPTH || !exists || chain.includes(target)) {
      out += lineText
      continue
    }
    const nested = await naiveSysprompt(target, depth + 1, [...chain, target])
    out += lineText.endsWith('\n') && !nested.endsWith('\n') ? `${nested}\n` : nested
  }
  return out + text.slice(last)
}

/** Gemini mode's inlining as it was before, likewise (no code spans or escapes in these texts). */
async function naiveGemini(path: string, depth: number, chain: Set<string>): Promise<string> {
  const text = await readFile(path, 'utf8')
  if (depth >= MAX_IMPORT_DEPTH) return text
  let out = ''
  let last = 0
  for (const ref of findGeminiImports(text)) {
    out += text.slice(last, ref.start)
    last = ref.end
    const full = resolve(dirname(path), ref.path)
    if (chain.has(full)) {
      out += `<!-- File already processed: ${ref.path} -->`
      continue
    }
    const exists = await readFile(full).then(
      () => true,
      () => false,
    )
    if (!exists) {
      out += `<!-- Import failed: ${ref.path} - ENOENT: no such file or directory, access '${full}' -->`
      continue
    }
    const nested = await naiveGemini(full, depth + 1, new Set([...chain, full]))
    out += `<!-- Imported from: ${ref.path} -->\n${nested}\n<!-- End of import from: ${ref.path} -->`
  }
  return out + text.slice(last)
}

describe('shared subtrees inline as a fresh expansion would', () => {
  it('sysprompt mode: any import graph, cycles included', async () => {
    await fc.assert(
      fc.asyncProperty(graphs, async (graph) => {
        const repo = await fixtureTree(graphTree(graph, (t) => `@f${t}.md`))
        const context = await createContext({ cwd: repo, home: repo })
        const top = join(repo, 'f0.md')
        const loaded = await loadFile(context, top, [repo])
        if (isRefusal(loaded)) throw new Error(loaded.why)
        const inlined = await inlineImports(context, loaded, [repo])
        expect(inlined.text).toBe(await naiveSysprompt(top, 0, [top]))
      }),
      { numRuns: propertyRuns(60) },
    )
  })

  it('gemini mode: any import graph, cycles through the top file included', async () => {
    await fc.assert(
      fc.asyncProperty(graphs, async (graph) => {
        const repo = await fixtureTree(graphTree(graph, (t) => `@./f${t}.md`))
        const context = await createContext({ cwd: repo, home: repo, mode: 'gemini' })
        const top = join(repo, 'f0.md')
        const loaded = await loadFile(context, top, [repo])
        if (isRefusal(loaded)) throw new Error(loaded.why)
        const inlined = await inlineGeminiImports(context, loaded, repo)
        expect(inlined.text).toBe(await naiveGemini(top, 0, new Set()))
      }),
      { numRuns: propertyRuns(60) },
    )
  })
})
