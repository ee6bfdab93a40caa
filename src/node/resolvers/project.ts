import type { AssembleContext, VariableInfo, VariableResolver } from '../../registry/types.js'
import type { FileSystemAdapter, OsAdapter } from '../adapters.js'
import { discoverInstructions } from '../instructions/discover.js'
import { locateProject } from '../project-root.js'

export interface ProjectResolverOptions {
  fs: FileSystemAdapter
  /** Gives the home directory, where instruction discovery finds the global files. */
  os: OsAdapter
  /** The configured root: the confinement boundary, and the project root when no `.git` lies between it and the working directory. */
  root: string
  cwdOf: (context: AssembleContext) => string
}

const CATALOG: VariableInfo[] = [
  {
    key: 'project:root',
    description:
      'The project root: the nearest directory holding `.git` from the working directory up to the configured root, else the configured root',
    example: '/home/ada/project',
    stability: 'session',
  },
  {
    key: 'project:instructions',
    description: 'The instruction files (AGENTS.md and friends) found for the working directory, as one text',
    example: '# AGENTS.md\n…',
    stability: 'session',
  },
]

/**
 * The `project` namespace (SPEC §3, §6): the project root (`findProjectRoot`:
 * never above the configured root), and the instruction files discovered
 * for the working directory from that root down, as the one text
 * `discoverInstructions` builds (absent when it finds no file). A working
 * directory outside the configured root gets no instructions: its files lie
 * outside the boundary every other resolver keeps to. Each key is computed
 * only when asked for.
 */
export function projectResolver(options: ProjectResolverOptions): VariableResolver {
  return {
    namespace: 'project',
    describe: () => CATALOG.map((info) => ({ ...info })),
    async resolve(keys, context) {
      const cwd = options.cwdOf(context)
      let located: ReturnType<typeof locateProject> | undefined
      // Both keys need the root: find it at most once per call.
      const project = (): ReturnType<typeof locateProject> => {
        located ??= locateProject({ cwd, root: options.root, fs: options.fs })
        return located
      }
      const instructions = async (): Promise<string | null> => {
        const { root, containsCwd } = await project()
        if (!containsCwd) return null
        const found = await discoverInstructions({ cwd, root, home: options.os.homedir(), fs: options.fs })
        return found.files.length === 0 ? null : found.text.trimEnd()
      }
      const values = await Promise.all(
        keys.map((key) =>
          key === 'project:root'
            ? project().then((p) => p.root)
            : key === 'project:instructions'
              ? instructions()
              : null,
        ),
      )
      return new Map(keys.map((key, i) => [key, values[i] ?? null]))
    },
  }
}
