import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// SPEC §1: the pure layers, top first. Each may import only from itself and
// the layers before it, and nothing from `node:*`, so they run in a browser.
const PURE_LAYERS = ['shared', 'template', 'registry', 'compile', 'presets'] as const
/** Every layer of SPEC §1, top first. */
const LAYERS = [...PURE_LAYERS, 'node', 'store', 'record', 'server', 'cli'] as const

/** Import circles allowed to stay: none. */
const KNOWN_CIRCLES: readonly string[] = []

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src')
const WEB = resolve(SRC, '..', 'web', 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    const shipped = entry.name.endsWith('.ts') && !/\.test(-helper)?\.ts$/.test(entry.name)
    return shipped ? [path] : []
  })
}

/** Every module specifier a file names: static imports and exports, dynamic `import()`. */
function specifiers(text: string): string[] {
  const found: string[] = []
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/g))
    found.push(m[1]!)
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) found.push(m[1]!)
  for (const m of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]!)
  return found
}

/** The source file a relative specifier names (`./x.js` → `x.ts`, a folder → its `index.ts`), if it exists. */
function target(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec).replace(/\.js$/, '')
  return [`${base}.ts`, join(base, 'index.ts')].find((path) => existsSync(path))
}

/**
 * The import circles among `files`, type-only imports included (a circle of
 * types still ties the files' meanings together): each strongly connected
 * group of more than one file, as its sorted paths relative to `src/`.
 */
function circles(files: readonly string[]): string[] {
  const edges = new Map<string, string[]>()
  for (const file of files) {
    const to = specifiers(readFileSync(file, 'utf8'))
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => target(file, spec))
      .filter((path): path is string => path !== undefined)
    edges.set(file, [...new Set(to)])
  }
  // Tarjan's algorithm, iterative enough for a source tree (recursion depth is the longest import chain).
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[] = []
  let next = 0
  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next)
    next++
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const group: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      group.push(relative(SRC, w).split(sep).join('/'))
    } while (w !== v)
    if (group.length > 1) found.push(group.sort().join(' | '))
  }
  for (const file of edges.keys()) if (!index.has(file)) visit(file)
  return found.sort()
}

/** The top-level folder of `src/` that `path` lies in, or `undefined` for `src/index.ts` and outside. */
function layerOf(path: string): string | undefined {
  const parts = relative(SRC, path).split(sep)
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined
}

describe('layering (SPEC §1)', () => {
  it('the specifier scan sees every kind of import', () => {
    const text =
      "import a from 'x'\nimport { b,\n c } from \"y\"\nexport * from './z.js'\nimport 'side'\nawait import('lazy')"
    expect(specifiers(text).sort()).toEqual(['./z.js', 'lazy', 'side', 'x', 'y'])
  })

  for (const [rank, layer] of PURE_LAYERS.entries()) {
    it(`src/${layer} imports nothing from node:* and only from layers above it`, () => {
      const allowed = new Set<string>(PURE_LAYERS.slice(0, rank + 1))
      const files = sourceFiles(join(SRC, layer))
      expect(files.length).toBeGreaterThan(0)
      const offending: string[] = []
      for (const file of files) {
        for (const spec of specifiers(readFileSync(file, 'utf8'))) {
          const where = `${relative(SRC, file)} → ${spec}`
          if (spec.startsWith('node:')) offending.push(where)
          else if (spec.startsWith('.')) {
            const target = layerOf(resolve(dirname(file), spec))
            if (target === undefined || !allowed.has(target)) offending.push(where)
          }
        }
      }
      expect(offending).toEqual([])
    })
  }

  it("src/record/parse (the recorder's parsers) imports nothing from node:* and only from pure layers and itself", () => {
    const dir = join(SRC, 'record', 'parse')
    const files = sourceFiles(dir)
    expect(files.length).toBeGreaterThan(0)
    const offending: string[] = []
    for (const file of files) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const where = `${relative(SRC, file)} → ${spec}`
        if (spec.startsWith('node:')) offending.push(where)
        else if (spec.startsWith('.')) {
          const target = resolve(dirname(file), spec)
          const layer = layerOf(target)
          const pure = PURE_LAYERS.some((l) => l === layer)
          if (!pure && !target.startsWith(dir)) offending.push(where)
        }
      }
    }
    expect(offending).toEqual([])
  })

  it('the pure entry (src/index.ts) reaches only pure layers', () => {
    const specs = specifiers(readFileSync(join(SRC, 'index.ts'), 'utf8'))
    expect(specs.length).toBeGreaterThan(0)
    const outside = specs.filter((s) => !PURE_LAYERS.some((layer) => s.startsWith(`./${layer}/`)))
    expect(outside).toEqual([])
  })

  for (const [rank, layer] of LAYERS.entries()) {
    if (!existsSync(join(SRC, layer))) continue
    it(`src/${layer} imports only from itself and the layers above it`, () => {
      const allowed = new Set<string>(LAYERS.slice(0, rank + 1))
      const offending: string[] = []
      for (const file of sourceFiles(join(SRC, layer))) {
        for (const spec of specifiers(readFileSync(file, 'utf8'))) {
          if (!spec.startsWith('.')) continue
          const target = layerOf(resolve(dirname(file), spec))
          if (target === undefined || !allowed.has(target)) offending.push(`${relative(SRC, file)} → ${spec}`)
        }
      }
      expect(offending).toEqual([])
    })
  }

  it('the page (web/src) takes nothing from the command line (src/cli)', () => {
    const offending: string[] = []
    for (const file of sourceFiles(WEB)) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        if (spec.startsWith('.') && layerOf(resolve(dirname(file), spec)) === 'cli')
          offending.push(`${relative(WEB, file)} → ${spec}`)
      }
    }
    expect(offending).toEqual([])
  })

  it('the circle finder sees a circle through a type-only import', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const dir = await mkdtemp(join(tmpdir(), 'sysprompt-circles-'))
    await writeFile(join(dir, 'a.ts'), "import type { B } from './b.js'\nexport type A = B\n")
    await writeFile(join(dir, 'b.ts'), "import { c } from './c.js'\nexport type B = number\n")
    await writeFile(join(dir, 'c.ts'), "import type { A } from './a.js'\nexport const c = 1\n")
    await writeFile(join(dir, 'd.ts'), "import { c } from './c.js'\n")
    expect(circles(sourceFiles(dir)).map((c) => c.split(' | ').length)).toEqual([3])
  })

  it('no import circle in src/ (type-only imports count)', () => {
    const found = circles(sourceFiles(SRC)).filter((circle) => !KNOWN_CIRCLES.includes(circle))
    expect(found).toEqual([])
  })
})
