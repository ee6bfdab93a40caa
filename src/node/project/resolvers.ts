import { resolve } from 'node:path'
import type { AssembleContext, VariableInfo, VariableResolver } from '../../registry/index.js'
import { keyNamespace } from '../../template/index.js'
import { nodeAdapters } from '../adapters.js'
import { denyList } from '../deny-list.js'
import {
  DEFAULT_FILE_MAX_BYTES,
  type GitDiagnostic,
  type InstructionDiscovery,
  nodeResolvers,
} from '../index.js'
import { fileResolver } from '../resolvers/file.js'

/** Why a resolved value is absent or withheld: git's failures, and `file:` values past the expansion budget. */
export type ResolverDiagnostic =
  | GitDiagnostic
  | {
      code: 'expansion-budget'
      message: string
      /** The working directory of the build. */
      cwd: string
    }

/** The expansion budget of `file:` values in one render (`maxExpandedFiles`, `maxExpandedBytes`). */
export interface FileExpansion {
  maxFiles?: number
  maxBytes?: number
  /** The texts that may place `file:` keys (template, rules, preset overrides), read when values are resolved. */
  texts: () => Iterable<string>
}

/** What {@link cliResolvers} needs from the command line. */
export interface CliResolverOptions {
  root: string
  cwd: string
  /** `--env` names. */
  envAllowlist: string[]
  /** `--allow-file` globs. */
  allowFiles: readonly string[]
  /** Told why a git value is absent (failure, timeout, refused repository), or a `file:` value withheld. */
  onDiagnostic?: (diagnostic: ResolverDiagnostic) => void
  /** `--set` values of namespaced keys. */
  pinned: ReadonlyMap<string, string>
  /** The instruction files found for this run (so `project:instructions` follows `--root` and `--mode`). */
  discovery: InstructionDiscovery
  /** The budget of `file:` values; the defaults of `fileResolver` (200 files, 4 MiB, each key counted once) without it. */
  fileExpansion?: FileExpansion
}

/**
 * The resolvers the command line registers: the built-in ones of SPEC §3,
 * with `project` answered from this run's discovery (the built-in resolver
 * walks to the nearest `.git` in `sysprompt` mode; the command line honours
 * `--root` and `--mode`), `file` with its expansion budget counting each
 * value once per place the texts put it, and `--set` values pinned over
 * everything.
 */
export function cliResolvers(options: CliResolverOptions): VariableResolver[] {
  const builtin = nodeResolvers({
    root: options.root,
    cwd: options.cwd,
    envAllowlist: options.envAllowlist,
    allowFiles: options.allowFiles,
    ...(options.onDiagnostic === undefined ? {} : { onDiagnostic: options.onDiagnostic }),
  })
  const resolvers = builtin.map((r) =>
    r.namespace === 'project'
      ? projectResolver(r, options)
      : r.namespace === 'file' && options.fileExpansion !== undefined
        ? budgetedFiles(options, options.fileExpansion)
        : r,
  )
  const byNamespace = new Map<string, Map<string, string>>()
  for (const [key, value] of options.pinned) {
    const ns = keyNamespace(key)
    if (ns === undefined) continue
    if (!byNamespace.has(ns)) byNamespace.set(ns, new Map())
    byNamespace.get(ns)!.set(key, value)
  }
  const out = resolvers.map((r) => {
    const values = byNamespace.get(r.namespace)
    byNamespace.delete(r.namespace)
    return values === undefined ? r : pin(r, r.namespace, values)
  })
  for (const [ns, values] of byNamespace) out.push(pin(undefined, ns, values))
  return out
}

/**
 * The built-in `file` resolver (same roots, cap and deny-list), its budget
 * counting a value as often as the texts place its key: a template naming
 * one file 2 000 times costs 2 000 times its size, not once.
 */
function budgetedFiles(options: CliResolverOptions, expansion: FileExpansion): VariableResolver {
  const root = resolve(options.root)
  const cwd = resolve(root, options.cwd)
  let uses: Map<string, number> | undefined
  return fileResolver({
    fs: nodeAdapters().fs,
    roots: [root],
    maxBytes: DEFAULT_FILE_MAX_BYTES,
    cwdOf: (context: AssembleContext) =>
      typeof context.cwd === 'string' && context.cwd !== '' ? resolve(root, context.cwd) : cwd,
    denyList: denyList(options.allowFiles),
    budget: {
      ...(expansion.maxFiles === undefined ? {} : { maxFiles: expansion.maxFiles }),
      ...(expansion.maxBytes === undefined ? {} : { maxBytes: expansion.maxBytes }),
      usesOf: (key) => {
        uses ??= fileKeyUses(expansion.texts())
        return uses.get(key) ?? 1
      },
      onExceeded: (message) => options.onDiagnostic?.({ code: 'expansion-budget', message, cwd }),
    },
  })
}

/**
 * How many times each `file:` key is written in `texts`: every `file:`
 * and what follows it up to whitespace, a bracket or a brace (where a key
 * ends, SPEC §2). One pass over each text; it counts a key in a condition
 * or in plain prose too, so it never counts fewer uses than a render makes.
 */
export function fileKeyUses(texts: Iterable<string>): Map<string, number> {
  const uses = new Map<string, number>()
  for (const text of texts) {
    let at = text.indexOf('file:')
    while (at !== -1) {
      let end = at + 'file:'.length
      while (end < text.length && !KEY_STOP.test(text[end]!)) end++
      const key = text.slice(at, end)
      uses.set(key, (uses.get(key) ?? 0) + 1)
      at = text.indexOf('file:', end)
    }
  }
  return uses
}

const KEY_STOP = /[\s[\]{}]/

function projectResolver(builtin: VariableResolver, options: CliResolverOptions): VariableResolver {
  const { root, discovery } = options
  const instructions = discovery.files.length === 0 ? null : discovery.text.trimEnd()
  return {
    namespace: 'project',
    describe: () =>
      builtin.describe().map((info) =>
        info.key === 'project:root'
          ? {
              ...info,
              description: 'The project root: --root, else the nearest .sysprompt/ or .git above --cwd',
            }
          : info,
      ),
    async resolve(keys) {
      return new Map(
        keys.map((key) => [
          key,
          key === 'project:root' ? root : key === 'project:instructions' ? instructions : null,
        ]),
      )
    },
  }
}

/** `resolver` with some keys answered by fixed values (`--set`); those keys join its catalog when new. */
function pin(
  resolver: VariableResolver | undefined,
  namespace: string,
  values: Map<string, string>,
): VariableResolver {
  return {
    namespace,
    describe() {
      const infos: VariableInfo[] = resolver?.describe() ?? []
      const named = new Set(infos.map((i) => i.key))
      for (const key of values.keys()) {
        if (!named.has(key)) infos.push({ key, description: 'Set with --set', stability: 'session' })
      }
      return infos
    },
    async resolve(keys, context) {
      const rest = keys.filter((k) => !values.has(k))
      const found =
        resolver !== undefined && rest.length > 0 ? await resolver.resolve(rest, context) : new Map()
      return new Map(keys.map((k) => [k, values.get(k) ?? found.get(k) ?? null]))
    },
  }
}

/** Every key the resolvers describe, and the namespaces whose `pattern` entry covers any key. */
export interface Catalog {
  infos: VariableInfo[]
  /** Whether a key is one a resolver answers (a catalog key, or any key of a namespace with a pattern entry). */
  knows(key: string): boolean
  info(key: string): VariableInfo | undefined
  namespaces: string[]
}

/** The catalog of what the resolvers can answer (SPEC §3 `describe()`). */
export function catalogOf(resolvers: readonly VariableResolver[]): Catalog {
  const infos = resolvers.flatMap((r) => r.describe())
  const exact = new Map(infos.filter((i) => i.pattern !== true).map((i) => [i.key, i]))
  const patterns = new Map<string, VariableInfo>()
  for (const info of infos) {
    const ns = keyNamespace(info.key)
    if (info.pattern === true && ns !== undefined) patterns.set(ns, info)
  }
  const info = (key: string) => exact.get(key) ?? patterns.get(keyNamespace(key) ?? '')
  return {
    infos,
    info,
    knows: (key) => info(key) !== undefined,
    namespaces: resolvers.map((r) => r.namespace),
  }
}
