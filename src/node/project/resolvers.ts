import type { VariableInfo, VariableResolver } from '../../registry/index.js'
import { keyNamespace } from '../../template/index.js'
import { type GitDiagnostic, type InstructionDiscovery, nodeResolvers } from '../index.js'

/** What {@link cliResolvers} needs from the command line. */
export interface CliResolverOptions {
  root: string
  cwd: string
  /** `--env` names. */
  envAllowlist: string[]
  /** `--allow-file` globs. */
  allowFiles: readonly string[]
  /** Told why a git value is absent (failure, timeout, refused repository). */
  onDiagnostic?: (diagnostic: GitDiagnostic) => void
  /** `--set` values of namespaced keys. */
  pinned: ReadonlyMap<string, string>
  /** The instruction files found for this run (so `project:instructions` follows `--root` and `--mode`). */
  discovery: InstructionDiscovery
}

/**
 * The resolvers the command line registers: the built-in ones of SPEC §3,
 * with `project` answered from this run's discovery (the built-in resolver
 * walks to the nearest `.git` in `sysprompt` mode; the command line honours
 * `--root` and `--mode`), and `--set` values pinned over everything.
 */
export function cliResolvers(options: CliResolverOptions): VariableResolver[] {
  const builtin = nodeResolvers({
    root: options.root,
    cwd: options.cwd,
    envAllowlist: options.envAllowlist,
    allowFiles: options.allowFiles,
    ...(options.onDiagnostic === undefined ? {} : { onDiagnostic: options.onDiagnostic }),
  })
  const resolvers = builtin.map((r) => (r.namespace === 'project' ? projectResolver(r, options) : r))
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
