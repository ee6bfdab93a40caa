import { isAbsolute, join } from 'node:path'
import type { CompiledPrompt, CompiledSection, SectionFile } from '../../compile/index.js'
import type { InstructionDiscovery } from '../instructions/index.js'
import { shown } from './paths.js'

const INSTRUCTIONS_KEY = 'project:instructions'

/**
 * The compiled prompt with every section's included files named: the
 * instruction files (and their imports) inside a `project:instructions`
 * insertion, from the spans discovery rendered them at, and `file:` paths
 * made relative to the root (the key names them relative to `cwd`). Both
 * come from where the renderer put each value, never from searching the
 * text, so a changed line is blamed on the file it came from.
 */
export function withIncludedFiles(
  compiled: CompiledPrompt,
  discovery: InstructionDiscovery,
  root: string,
  cwd: string,
): CompiledPrompt {
  if (!compiled.sections.some((s) => s.insertions !== undefined)) return compiled
  const sections = compiled.sections.map((section) => sectionFiles(section, discovery, root, cwd))
  return { ...compiled, sections }
}

function sectionFiles(
  section: CompiledSection,
  discovery: InstructionDiscovery,
  root: string,
  cwd: string,
): CompiledSection {
  if (section.insertions === undefined) return section
  const files: SectionFile[] = []
  for (const ins of section.insertions) {
    if (ins.key.startsWith('file:')) {
      const path = ins.key.slice('file:'.length)
      const rel = shown(isAbsolute(path) ? path : join(cwd, path), root)
      files.push({ path: rel, key: ins.key, start: ins.start, end: ins.end })
    } else if (ins.key === INSTRUCTIONS_KEY) {
      // The value is the discovery text with its trailing line break trimmed; clamp to what was inserted.
      const length = ins.end - ins.start
      const at = (n: number) => ins.start + Math.min(n, length)
      for (const span of discovery.spans) {
        if (span.headerStart >= length) break
        files.push({
          path: span.shown,
          key: ins.key,
          headerStart: at(span.headerStart),
          start: at(span.start),
          end: at(span.end),
        })
        for (const imp of span.imports ?? []) {
          files.push({ path: shown(imp.path, root), key: ins.key, start: at(imp.start), end: at(imp.end) })
        }
      }
    }
  }
  if (files.length === 0) {
    const { files: _dropped, ...rest } = section
    return rest
  }
  return { ...section, files }
}
