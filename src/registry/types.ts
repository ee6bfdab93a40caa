import type { Stability } from '../shared/vocabulary.js'
import type { Dialect } from '../template/index.js'

export type { Stability }

/** What one `assemble` call is for. Providers must tolerate absent fields. */
export interface AssembleContext {
  /** Selects a scope's registrations (see `registry.scope`). */
  scope?: string
  cwd?: string
  model?: string
  provider?: string
  conversationId?: string
  workspaceId?: string
  [key: string]: unknown
}

/** A tool as the model sees it; `parameters` is a JSON Schema object. */
export interface ToolSchema {
  name: string
  description?: string
  parameters: Record<string, unknown>
}

/** What a tool provider contributes to one assembly. */
export interface ToolContribution {
  /** The tools the model may see for this context. */
  schemas: ToolSchema[]
  /** Every name this provider could ever contribute (defaults to the schemas' names); `toolOrder` is checked against it. */
  knownNames?: string[]
}

export type ToolProvider = (ctx: AssembleContext) => ToolContribution

/** A section as registered. */
export interface PromptSection {
  name: string
  /** Ascending; `-100` harness identity, `0` persona, `100–199` tool guidance. */
  order: number
  text: string | ((ctx: AssembleContext) => string)
  /** Defaults to `mustache`. */
  dialect?: Dialect
  /** What the section declares; defaults to `static`. */
  stability?: Stability
  /** Budget cuts take lower priorities first; a section without one is never cut. */
  priority?: number
}

/** A section in an assembly: text resolved, not yet interpolated. */
export interface AssembledSection {
  name: string
  order: number
  text: string
  dialect: Dialect
  stability: Stability
  priority?: number
}

export interface PromptAssembly {
  sections: AssembledSection[]
  tools: ToolSchema[]
  /** Every visible variable; `undefined` means registered but without a value for this assembly. */
  variables: Record<string, string | undefined>
  /** Each variable's stability. */
  stability: Record<string, Stability>
}

/** Describes one key a resolver can produce (SPEC §3). */
export interface VariableInfo {
  key: string
  description: string
  example?: string
  stability: Stability
  /** The entry stands for every key of its namespace that no other entry names (written `file:<path>`). */
  pattern?: boolean
}

/** Produces the values of one namespace's keys (`git:branch`, `file:docs/A.md`). */
export interface VariableResolver {
  namespace: string
  describe(): VariableInfo[]
  /** Resolves only the keys asked for; `null` (or a missing entry) means absent. */
  resolve(keys: string[], context: AssembleContext): Promise<Map<string, string | null>>
}

export type VariableProvider = (ctx: AssembleContext) => string | undefined

export interface VariableOptions {
  /** Defaults to `session`. */
  stability?: Stability
  description?: string
}

export interface PromptProtection {
  sections?: readonly string[]
  tools?: readonly string[]
}

export type AssembleNext = (assembly?: PromptAssembly) => Promise<PromptAssembly>

/** One step of the assembly waterfall: returns the assembly, usually after `await next()`. */
export type AssembleMiddleware = (
  assembly: PromptAssembly,
  ctx: AssembleContext,
  next: AssembleNext,
) => Promise<PromptAssembly> | PromptAssembly

/** Removes what a registration added. Calling it again does nothing. */
export type Disposer = () => void

/** The registration methods, available globally and per scope. */
export interface PromptRegistrar {
  section(section: PromptSection): Disposer
  tools(provider: ToolProvider): Disposer
  variable(name: string, provider: VariableProvider, info?: VariableOptions): Disposer
  resolver(resolver: VariableResolver): Disposer
  protect(protection: PromptProtection): Disposer
  use(middleware: AssembleMiddleware): Disposer
}

export interface ScopedRegistry extends PromptRegistrar {
  readonly key: string
  /** Removes everything registered in this scope. */
  dispose(): void
}

export interface PromptRegistry extends PromptRegistrar {
  onChange(listener: () => void): Disposer
  /** The same object for the same key. */
  scope(key: string): ScopedRegistry
  assemble(ctx?: AssembleContext): Promise<PromptAssembly>
}

export interface PromptRegistryOptions {
  /** The harness identity section (`harness:identity`, order -100). */
  identity?: string
  /** The deployment persona section (`deployment:persona`, order 0). */
  persona?: string
  /** Canonical tool order; must hold `<unlisted-tools>` exactly once. */
  toolOrder?: string[]
}
