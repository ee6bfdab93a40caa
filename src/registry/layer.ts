import type {
  AssembleMiddleware,
  PromptProtection,
  PromptSection,
  ToolProvider,
  VariableOptions,
  VariableProvider,
  VariableResolver,
} from './types.js'

export interface VariableEntry {
  provider: VariableProvider
  info: VariableOptions
}

/**
 * What one layer (the global one or a scope) has registered. Maps keep
 * registration order, which is the tie-breaker for equal section orders.
 */
export class Layer {
  readonly sections = new Map<string, PromptSection>()
  readonly variables = new Map<string, VariableEntry>()
  readonly resolvers = new Map<string, VariableResolver>()
  readonly toolProviders = new Set<{ provider: ToolProvider }>()
  readonly protections = new Set<PromptProtection>()
  /** Disposers of everything registered here, so a scope can dispose it all. */
  readonly disposers = new Set<() => void>()

  constructor(readonly scope: string | undefined) {}

  get label(): string {
    return this.scope === undefined ? 'globally' : `in scope "${this.scope}"`
  }
}

/** A middleware with the layer it was registered on; one list keeps global and scoped ones interleaved as registered. */
export interface MiddlewareEntry {
  scope: string | undefined
  fn: AssembleMiddleware
}
