import { dirname } from 'node:path'
import { type CompiledPrompt, canonicalJson, resolveTokenizer, withCountCache } from '../../compile/index.js'
import { utf8Length } from '../../shared/hash.js'
import { type InstructionFile, nodeAdapters, READ_LIMIT, readConfinedFile } from '../index.js'
import { sentText } from '../instructions/modes/harness-views.js'
import { shown } from '../project/paths.js'
import { cacheOptions, cachePlan, type ProjectPrompt } from '../project/project.js'
import { describeDecision } from '../project/rules.js'
import { harnessCache } from './harness-cache.js'
import { discoveryLimits } from './harness-loads.js'
import { type Overview, overview } from './overview.js'

/** Modes whose harness implies a provider (the cache plan's `MODE_PROVIDER`). */
const MODE_IMPLIES_PROVIDER: ReadonlySet<string> = new Set(['claude', 'codex', 'gemini'])

/** One instruction file as `inspect` reports it (imports nested). */
export interface InspectedFile {
  path: string
  shown: string
  bytes: number
  truncated: boolean
  /**
   * Tokens of the file's own text. A file with its own block in the
   * instruction text: its text there as the mode sends it (what it inlines
   * included, its header line not: see `framingTokens`). An
   * import inlined into its importer (sysprompt mode): its own text as read,
   * which the importer's count already includes. `null` when neither can be
   * counted (no header, or the file can no longer be read).
   */
  tokens: number | null
  /**
   * Tokens of the header line above the file's block (the framing sysprompt
   * adds); `null` for an inlined import, and in a harness mode, whose own
   * framing is counted in its parts (`instructions.harness`).
   */
  framingTokens: number | null
  /** The files it imports: inlined into its text (sysprompt mode), or blocks of their own that follow it (Claude Code's `@path`). */
  imports: InspectedFile[]
}

function inspectFile(
  file: InstructionFile,
  root: string,
  blocks: ReadonlyMap<string, { tokens: number; framing: number | null }>,
  imported: ReadonlyMap<string, number>,
): InspectedFile {
  const block = blocks.get(file.path)
  return {
    path: file.path,
    shown: shown(file.path, root),
    bytes: file.bytes,
    truncated: file.truncated,
    tokens: block?.tokens ?? imported.get(file.path) ?? null,
    framingTokens: block?.framing ?? null,
    imports: (file.imports ?? []).map((f) => inspectFile(f, root, blocks, imported)),
  }
}

/**
 * The files with each one a harness loads as a block of its own because
 * another file imports it (Claude Code's `@path`: `importedBy`) nested
 * under its importer, as the imports sysprompt mode inlines are. Only under
 * an importer listed before it (discovery loads an import right after its
 * importer), so the nesting is a tree; any other stays where it was loaded.
 */
function nestedImports(files: readonly InstructionFile[]): InstructionFile[] {
  const at = new Map(files.map((f, i) => [f.path, i]))
  const under = new Map<string, InstructionFile[]>()
  const top: InstructionFile[] = []
  files.forEach((file, i) => {
    const by = file.importedBy
    const importer = by === undefined ? undefined : at.get(by)
    if (by === undefined || importer === undefined || importer >= i) top.push(file)
    else under.set(by, [...(under.get(by) ?? []), file])
  })
  const nest = (file: InstructionFile): InstructionFile => {
    const own = under.get(file.path)
    return own === undefined ? file : { ...file, imports: [...(file.imports ?? []), ...own.map(nest)] }
  }
  return top.map(nest)
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

/**
 * Tokens of each file's own text in the instruction text (as the mode's
 * harness sends it: `sentText`), and of the header
 * line above it (the framing sysprompt adds), from the spans discovery
 * rendered each block at (never a search of the text).
 */
function blockTokens(
  discovery: ProjectPrompt['discovery'],
  count: (text: string) => number,
): Map<string, { tokens: number; framing: number | null }> {
  const out = new Map<string, { tokens: number; framing: number | null }>()
  for (const span of discovery.spans) {
    out.set(span.path, {
      // As the harness sends it (Claude Code leaves out HTML comments), as its view counts it.
      tokens: count(sentText(discovery.harness.mode, discovery.text.slice(span.start, span.end))),
      // sysprompt's own `<!-- path -->` line; a harness frames files its own way, counted in its parts (`harness`).
      framing:
        discovery.harness.mode === 'sysprompt'
          ? count(discovery.text.slice(span.headerStart, span.start))
          : null,
    })
  }
  return out
}

/**
 * Everything `sysprompt inspect` shows, as data (its `--json`): the
 * sections with their size, share and source, the tools, the instruction
 * files, the rules and why they are in or out, the stable prefixes and the
 * cache plan for the chosen provider, and the totals.
 */
export async function inspectData(
  project: ProjectPrompt,
  compiled: CompiledPrompt,
  { agents: firstScreen = true }: { agents?: boolean } = {},
) {
  const { root, cwd, options, template } = project
  // Through the count cache too, so a warm run counts nothing.
  const tokenizer = withCountCache(resolveTokenizer(options.tokenizer), project.countCache)
  const total = compiled.tokens
  const planOptions = cacheOptions(options)
  const plan = cachePlan(project, compiled)
  // In a harness mode the cache block describes what the harness sends (its view), not sysprompt's prompt.
  const harness =
    options.mode === 'sysprompt'
      ? undefined
      : harnessCache(options.mode, project.discovery.harness.parts, planOptions, plan.warnings)
  const lineOf = (at: number) => compiled.text.slice(0, at).split('\n').length
  const fileTokens = blockTokens(project.discovery, (text) => tokenizer.count(text))
  const importedTokens = await importTokens(project.discovery.files, root, (text) => tokenizer.count(text))
  const sectionAt = (end: number) => compiled.sections.find((s) => s.end === end)?.name ?? null
  const tools = compiled.tools.map((t) => ({
    name: t.name,
    hash: t.hash,
    // Providers render tool schemas their own way; the canonical JSON is a fair estimate.
    tokens: tokenizer.count(canonicalJson(t.schema)),
  }))
  // The first screen: every harness's view of the project, before the detail of the chosen mode
  // (null when a mode was chosen: that harness's detail alone is asked for).
  const agents: { [K in keyof Overview]: Overview[K] | null } = firstScreen
    ? await overview({
        cwd,
        root,
        rootIsBoundary: options.root !== undefined,
        paths: options.paths,
        tokenizer: options.tokenizer,
        ...(project.countCache === undefined ? {} : { countCache: project.countCache }),
        ...discoveryLimits(options),
      })
    : { harnesses: null, skills: null, neverLoaded: null }
  return {
    root,
    cwd,
    ...agents,
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
      /** The harness version profile that applied (null in sysprompt mode). */
      profile: project.discovery.profile,
      preload: project.discovery.preload,
      files: nestedImports(project.discovery.files).map((f) =>
        inspectFile(f, root, fileTokens, importedTokens),
      ),
      // Loaded only when the agent works near them; the late-bound ones arrive with a tool result, outside the cached prefix.
      onDemand: project.discovery.onDemand.map((f) => ({
        path: f.path,
        shown: shown(f.path, root),
        when: f.when,
        tokens: f.tokens,
        bytes: f.bytes,
        loadedFor: f.loadedFor.map((p) => shown(p, root)),
        lands: f.loadedFor.length > 0 ? ('tool-result' as const) : null,
      })),
      diagnostics: project.discovery.diagnostics,
      // Where the harness of --mode puts each part of its instruction text (show --as-harness prints the text).
      harness: project.discovery.harness.parts.map((p) => ({
        placement: p.placement,
        role: p.role,
        tokens: p.tokens,
        exact: p.exact,
        files: p.files.map((f) => shown(f, root)),
      })),
    },
    rules: project.judged.map(({ rule, decision }) => ({
      id: rule.id,
      file: shown(rule.source, root),
      applies: decision.applies,
      reason: decision.reason,
      why: describeDecision(decision, options.paths, root),
    })),
    stablePrefix: harness?.stablePrefix ?? {
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
      /** What the block describes: `prompt` (sysprompt's own, sysprompt mode) or `harness` (what --mode's harness sends). */
      view: harness === undefined ? ('prompt' as const) : ('harness' as const),
      /** Tokens of that text, the block's one total: the prompt's, or the harness view's parts' together. */
      tokens: harness?.tokens ?? total,
      provider: planOptions.provider,
      model: options.model ?? null,
      /** Whether a provider or model was named: without, the minimum is the provider's largest, a guess. */
      named: planOptions.minimumWarnings !== false,
      /**
       * Where the provider came from: `option` (--provider), `mode` (implied by
       * --mode, e.g. claude → anthropic) or `none` (nothing named it: the
       * provider and minimum above are placeholders, not to be shown as facts).
       */
      providerFrom: options.providerGiven
        ? ('option' as const)
        : MODE_IMPLIES_PROVIDER.has(options.mode)
          ? ('mode' as const)
          : ('none' as const),
      baseTokens: options.baseTokens ?? 0,
      minTokens: plan.minTokens,
      // Section ends of sysprompt's prompt; none in a harness mode (the harness places its own cache marks).
      breakpoints: (harness === undefined ? plan.breakpoints : []).map((at) => ({
        at,
        line: lineOf(at),
        section: sectionAt(at),
        cacheable: plan.marks.includes(at),
      })),
      cacheableTokens: harness?.cacheableTokens ?? plan.cacheableTokens,
      warnings: harness?.warnings ?? plan.warnings,
    },
    warnings: compiled.warnings,
    /** Why resolved values are absent (git failed, timed out or refused the repository). */
    variableDiagnostics: project.resolverDiagnostics.map(({ code, message }) => ({ code, message })),
  }
}

/** What `inspect --json` prints. */
export type InspectData = Awaited<ReturnType<typeof inspectData>>
