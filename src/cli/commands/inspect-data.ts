import { homedir } from 'node:os'
import { dirname, relative, sep } from 'node:path'
import { utf8Length } from '../../compile/hash.js'
import { type CompiledPrompt, canonicalJson, resolveTokenizer } from '../../compile/index.js'
import {
  header,
  type InstructionFile,
  isInside,
  nodeAdapters,
  READ_LIMIT,
  readConfinedFile,
} from '../../node/index.js'
import { shown } from '../../node/project/paths.js'
import { cachePlan, type ProjectPrompt } from '../../node/project/project.js'
import { describeDecision } from '../../node/project/rules.js'

/** One instruction file as `inspect` reports it (imports nested). */
export interface InspectedFile {
  path: string
  shown: string
  bytes: number
  truncated: boolean
  /**
   * Tokens of the file. A file with its own header line in the instruction
   * text: its block there (the header, its text and what it inlines). An
   * import inlined into its importer (sysprompt mode): its own text as read,
   * which the importer's count already includes. `null` when neither can be
   * counted (no header, or the file can no longer be read).
   */
  tokens: number | null
  imports: InspectedFile[]
}

function inspectFile(
  file: InstructionFile,
  root: string,
  blocks: ReadonlyMap<string, number>,
  imported: ReadonlyMap<string, number>,
): InspectedFile {
  return {
    path: file.path,
    shown: shown(file.path, root),
    bytes: file.bytes,
    truncated: file.truncated,
    tokens: blocks.get(headerName(file.path, root)) ?? imported.get(file.path) ?? null,
    imports: (file.imports ?? []).map((f) => inspectFile(f, root, blocks, imported)),
  }
}

/**
 * Tokens of each inlined import's own text. Discovery keeps no text per
 * import (it is spliced into its importer's), so the file is read again,
 * confined as discovery confined it: to the project root, or to the
 * directory of the global file that imports it.
 */
async function importTokens(
  files: readonly InstructionFile[],
  root: string,
  count: (text: string) => number,
): Promise<Map<string, number>> {
  const fs = nodeAdapters().fs
  const out = new Map<string, number>()
  const visit = async (file: InstructionFile, roots: readonly string[]): Promise<void> => {
    if (!out.has(file.path)) {
      const read = await readConfinedFile(file.path, dirname(file.path), { roots, maxBytes: READ_LIMIT, fs })
      if (read.ok) out.set(file.path, count(read.text.replace(/^\uFEFF/, '')))
    }
    for (const f of file.imports ?? []) await visit(f, roots)
  }
  for (const top of files) {
    const roots = [root, dirname(top.path)]
    for (const f of top.imports ?? []) await visit(f, roots)
  }
  return out
}

/** How discovery names a file in its header lines: relative to the root (`../…` above it), `~/…` under the home directory. */
function headerName(path: string, root: string): string {
  const home = homedir()
  const rel = (from: string) => relative(from, path).split(sep).join('/')
  if (!isInside(root, path) && isInside(home, path)) return `~/${rel(home)}`
  return rel(root) || '.'
}

/**
 * Tokens of each file's block in the instruction text, found by the header
 * line discovery writes above each file (`<!-- path -->`): where a file's
 * share of the `project:instructions` value goes.
 */
function blockTokens(
  text: string,
  names: readonly string[],
  count: (text: string) => number,
): Map<string, number> {
  const starts = names
    .map((name) => {
      const bare = header(name)
      const at = text.indexOf(`${bare}\n`)
      const noted = at === -1 ? text.indexOf(`${bare.slice(0, -4)} (`) : at
      return { name, at: noted }
    })
    .filter((s) => s.at !== -1)
    .sort((a, b) => a.at - b.at)
  const out = new Map<string, number>()
  starts.forEach((s, i) => {
    out.set(s.name, count(text.slice(s.at, starts[i + 1]?.at ?? text.length)))
  })
  return out
}

/**
 * Everything `sysprompt inspect` shows, as data (its `--json`): the
 * sections with their size, share and source, the tools, the instruction
 * files, the rules and why they are in or out, the stable prefixes and the
 * cache plan for the chosen provider, and the totals.
 */
export async function inspectData(project: ProjectPrompt, compiled: CompiledPrompt) {
  const { root, cwd, options, template } = project
  const tokenizer = resolveTokenizer(options.tokenizer)
  const total = compiled.tokens
  const plan = cachePlan(project, compiled)
  const fileTokens = blockTokens(
    project.discovery.text,
    project.discovery.files.map((f) => headerName(f.path, root)),
    (text) => tokenizer.count(text),
  )
  const importedTokens = await importTokens(project.discovery.files, root, (text) => tokenizer.count(text))
  const sectionAt = (end: number) => compiled.sections.find((s) => s.end === end)?.name ?? null
  const tools = compiled.tools.map((t) => ({
    name: t.name,
    hash: t.hash,
    // Providers render tool schemas their own way; the canonical JSON is a fair estimate.
    tokens: tokenizer.count(canonicalJson(t.schema)),
  }))
  return {
    root,
    cwd,
    prompt:
      project.kind === 'template'
        ? {
            kind: 'template' as const,
            file: template === undefined ? null : shown(template.file, root),
            builtin: template?.builtin ?? false,
            dialect: template?.dialect ?? null,
          }
        : { kind: 'preset' as const, preset: project.kind },
    tokenizer: compiled.tokenizer,
    hash: compiled.hash,
    totals: {
      sections: compiled.sections.length,
      bytes: compiled.bytes,
      tokens: total,
      tools: tools.length,
      toolTokens: tools.reduce((n, t) => n + t.tokens, 0),
    },
    sections: compiled.sections.map((s, i) => {
      const text = compiled.text.slice(s.start, s.end)
      return {
        index: i + 1,
        name: s.name,
        order: s.order,
        stability: s.stability,
        bytes: utf8Length(text),
        tokens: s.tokens,
        share: total === 0 ? 0 : s.tokens / total,
        hash: s.hash,
        start: s.start,
        end: s.end,
        source: project.sources[s.name] ?? null,
      }
    }),
    tools,
    instructions: {
      mode: options.mode,
      preload: project.discovery.preload,
      files: project.discovery.files.map((f) => inspectFile(f, root, fileTokens, importedTokens)),
      diagnostics: project.discovery.diagnostics,
    },
    rules: project.judged.map(({ rule, decision }) => ({
      id: rule.id,
      file: shown(rule.source, root),
      applies: decision.applies,
      reason: decision.reason,
      why: describeDecision(decision, options.paths, root),
    })),
    stablePrefix: {
      static: {
        ...compiled.stablePrefix.static,
        through: compiled.stablePrefix.static.end === 0 ? null : sectionAt(compiled.stablePrefix.static.end),
      },
      session: {
        ...compiled.stablePrefix.session,
        through:
          compiled.stablePrefix.session.end === 0 ? null : sectionAt(compiled.stablePrefix.session.end),
      },
    },
    cache: {
      provider: options.provider,
      model: options.model ?? null,
      minTokens: plan.minTokens,
      breakpoints: plan.breakpoints.map((at) => ({ at, section: sectionAt(at) })),
      cacheableTokens: plan.cacheableTokens,
      warnings: plan.warnings,
    },
    warnings: compiled.warnings,
    /** Why resolved values are absent (git failed, timed out or refused the repository). */
    variableDiagnostics: project.resolverDiagnostics.map(({ code, message }) => ({ code, message })),
  }
}

/** What `inspect --json` prints. */
export type InspectData = Awaited<ReturnType<typeof inspectData>>
