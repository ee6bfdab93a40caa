import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// SPEC §1: the pure layers, top first. Each may import only from itself and
// the layers before it, and nothing from `node:*`, so they run in a browser.
const PURE_LAYERS = ['shared', 'template', 'registry', 'compile', 'presets'] as const

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src')

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

  it('the pure entry (src/index.ts) reaches only pure layers', () => {
    const specs = specifiers(readFileSync(join(SRC, 'index.ts'), 'utf8'))
    expect(specs.length).toBeGreaterThan(0)
    const outside = specs.filter((s) => !PURE_LAYERS.some((layer) => s.startsWith(`./${layer}/`)))
    expect(outside).toEqual([])
  })
})
