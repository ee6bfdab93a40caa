import { dirname, resolve } from 'node:path'
import { denyList, type InstructionFile, isInside, nodeAdapters, readConfinedFile } from '../../node/index.js'
import type { ProjectPrompt } from '../../node/project/project.js'
import { builtinPresetFragments } from '../../presets/index.js'
import { compileTemplate } from '../../template/index.js'

/** A file whose text reaches the prompt (or would, for a rule that does not apply now), as read. */
export interface IncludedFile {
  path: string
  role: 'template' | 'rule' | 'fragment' | 'instructions' | 'file-variable'
  text: string
}

/** Larger files are scanned up to this many bytes. */
const SCAN_BYTES = 1 << 20

function instructionPaths(files: readonly InstructionFile[], out: string[]): string[] {
  for (const file of files) {
    out.push(file.path)
    if (file.imports !== undefined) instructionPaths(file.imports, out)
  }
  return out
}

/**
 * Every file whose text the prompt includes: the template file, every
 * project rule (applying now or not), the preset fragments the project or
 * user overrides, the instruction files with their imports, and the files
 * `file:` variables read. Each is read once, confined to its own directory
 * (or the project root for `file:`), through the one safe reader.
 */
export async function readIncludedFiles(project: ProjectPrompt): Promise<IncludedFile[]> {
  const wanted = new Map<string, { role: IncludedFile['role']; roots: string[] }>()
  const add = (path: string, role: IncludedFile['role'], roots = [dirname(path)]) => {
    if (!wanted.has(path)) wanted.set(path, { role, roots })
  }
  const { template, root, cwd } = project
  if (template !== undefined && !template.builtin) add(template.file, 'template')
  for (const error of project.templateErrors) add(error.file, 'template')
  for (const rule of project.rules.list) add(rule.source, 'rule')
  const presetIds = new Set(builtinPresetFragments().map((f) => f.id))
  for (const fragment of project.overrides.list) {
    if (presetIds.has(fragment.id)) add(fragment.source, 'fragment')
  }
  for (const path of instructionPaths(project.discovery.files, [])) add(path, 'instructions')
  for (const section of project.assembly?.sections ?? []) {
    const keys = compileTemplate(section.text, { dialect: section.dialect, strict: false }).variables
    for (const key of keys) {
      if (!key.startsWith('file:')) continue
      const path = resolve(cwd, key.slice('file:'.length))
      if (isInside(root, path)) add(path, 'file-variable', [root])
    }
  }
  const fs = nodeAdapters().fs
  // What the prompt could not include is not scanned either: `file:` keeps to the deny-list.
  const deny = denyList(project.options.allowFiles ?? [])
  const read = await Promise.all(
    [...wanted].map(async ([path, { role, roots }]) => {
      const outcome = await readConfinedFile(path, dirname(path), {
        roots,
        maxBytes: SCAN_BYTES,
        fs,
        ...(role === 'file-variable' ? { denyList: deny } : {}),
      })
      return outcome.ok ? { path, role, text: outcome.text } : undefined
    }),
  )
  return read.filter((f): f is IncludedFile => f !== undefined)
}
