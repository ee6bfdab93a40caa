import type { AssembleContext, VariableInfo, VariableResolver } from '../../registry/types.js'

export interface PromptResolverOptions {
  /** The working directory of an assembly (its context's, else the configured one). */
  cwdOf: (context: AssembleContext) => string
}

const CATALOG: VariableInfo[] = [
  {
    key: 'prompt:cwd',
    description: 'The working directory',
    example: '/home/ada/project',
    stability: 'session',
  },
  { key: 'prompt:model', description: 'The model id', example: 'gpt-5', stability: 'session' },
  {
    key: 'prompt:conversation_id',
    description: 'The conversation id',
    example: 'c_01hzx3',
    stability: 'session',
  },
  { key: 'prompt:workspace_id', description: 'The workspace id', example: 'w_team', stability: 'session' },
]

/** Context fields read by each key other than `prompt:cwd`. */
const FIELDS: Record<string, 'model' | 'conversationId' | 'workspaceId'> = {
  'prompt:model': 'model',
  'prompt:conversation_id': 'conversationId',
  'prompt:workspace_id': 'workspaceId',
}

/**
 * The `prompt` namespace (SPEC §3): facts of the assembly context. A field
 * the context does not carry as a string is absent, so `[if prompt:model]`
 * tests whether the harness told us the model.
 */
export function promptResolver(options: PromptResolverOptions): VariableResolver {
  return {
    namespace: 'prompt',
    describe: () => CATALOG.map((info) => ({ ...info })),
    async resolve(keys, context) {
      const out = new Map<string, string | null>()
      for (const key of keys) {
        if (key === 'prompt:cwd') {
          out.set(key, options.cwdOf(context))
          continue
        }
        const field = Object.hasOwn(FIELDS, key) ? FIELDS[key] : undefined
        const value = field === undefined ? undefined : context[field]
        out.set(key, typeof value === 'string' ? value : null)
      }
      return out
    },
  }
}
