import type { VariableInfo, VariableResolver } from '../../registry/types.js'
import type { OsAdapter } from '../adapters.js'

export interface EnvResolverOptions {
  os: OsAdapter
  /** The only names `env:<NAME>` may read (exact, case-sensitive). */
  allowlist: readonly string[]
}

/**
 * The `env` namespace (SPEC §3): `env:NAME` is that environment variable,
 * only for names on the explicit allow-list, so a template (which a user or
 * a workspace may edit) can never pull `AWS_SECRET_ACCESS_KEY` into a prompt
 * by naming it. A name off the list, or unset, is absent. The catalog lists
 * each allowed name, never its value.
 */
export function envResolver(options: EnvResolverOptions): VariableResolver {
  const allowed = new Set(options.allowlist)
  return {
    namespace: 'env',
    describe: () => [
      ...[...allowed].map(
        (name): VariableInfo => ({
          key: `env:${name}`,
          description: `The environment variable ${name}`,
          stability: 'session',
        }),
      ),
      {
        key: 'env:<NAME>',
        description: 'An environment variable, only when NAME is on the allow-list; absent otherwise',
        example: 'env:CI',
        stability: 'session',
        pattern: true,
      },
    ],
    async resolve(keys) {
      const out = new Map<string, string | null>()
      for (const key of keys) {
        const name = key.startsWith('env:') ? key.slice('env:'.length) : ''
        out.set(key, allowed.has(name) ? (options.os.env(name) ?? null) : null)
      }
      return out
    },
  }
}
