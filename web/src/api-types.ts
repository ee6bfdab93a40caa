/**
 * The response shapes of the HTTP API (SPEC §10) as the page reads them.
 * Compiled prompts, diffs and session versions are the library's own types,
 * so a change there breaks the page's build rather than the page.
 */
import type { CompiledPrompt, PromptDiff, SessionVersion } from '../../src/compile/types.js'
import type { Stability } from '../../src/registry/types.js'
import type { Diagnostic } from '../../src/template/errors.js'

export type { CompiledPrompt, Diagnostic, PromptDiff, SessionVersion, Stability }

export type Dialect = 'mustache' | 'bracket'
export type Provider = 'anthropic' | 'openai' | 'gemini'

/** Every error the API sends: `{ error: { code, message, details? } }`. */
export interface ApiErrorBody {
  error: { code: string; message: string; details?: unknown }
}

/** `GET /api/template` (seed 000's SystemPromptTemplateResponse). */
export interface TemplateResponse {
  template: string
  dialect: Dialect
  isDefault: boolean
  hash: string
  updatedAt: string | null
  /** Lenient diagnostics of the saved template, when the server sends them. */
  diagnostics?: Diagnostic[]
}

/** `PUT /api/template` (SetSystemPromptTemplateRequest). */
export interface SetTemplateRequest {
  template: string
  dialect: Dialect
  expectedHash?: string
}

/** One entry of `GET /api/variables` (SystemPromptVariable). */
export interface Variable {
  key: string
  description: string
  example?: string
  stability: Stability
  pattern?: boolean
  value?: string | null
}

export interface VariablesResponse {
  variables: Variable[]
}

/** `POST /api/preview` body. */
export interface PreviewRequest {
  template?: string
  dialect?: Dialect
  context: Record<string, unknown>
}

/** `POST /api/preview`: the compiled prompt and the template's diagnostics. */
export interface PreviewResponse {
  compiled: CompiledPrompt
  diagnostics: Diagnostic[]
}

/** One instruction file as `inspect` reports it (imports nested). */
export interface InspectedFile {
  path: string
  shown: string
  bytes: number
  truncated: boolean
  tokens: number | null
  imports: InspectedFile[]
}

/** `GET /api/inspect`: what `sysprompt inspect --json` reports. */
export interface InspectResponse {
  root: string
  cwd: string
  prompt:
    | { kind: 'template'; file: string | null; builtin: boolean; dialect: Dialect | null }
    | { kind: 'preset'; preset: string }
  tokenizer: string
  hash: string
  totals: { sections: number; bytes: number; tokens: number; tools: number; toolTokens: number }
  sections: {
    index: number
    name: string
    order: number
    stability: Stability
    bytes: number
    tokens: number
    share: number
    hash: string
    start: number
    end: number
    source: unknown
  }[]
  tools: { name: string; hash: string; tokens: number }[]
  instructions: {
    mode: string
    preload: string
    files: InspectedFile[]
    diagnostics: unknown[]
    onDemand?: { path: string; when: string; tokens: number }[]
  }
  rules: { id: string; file: string; applies: boolean; reason: string; why: string }[]
  stablePrefix: {
    static: { end: number; tokens: number; through: string | null }
    session: { end: number; tokens: number; through: string | null }
  }
  cache: {
    provider: string | null
    model: string | null
    minTokens: number | null
    breakpoints: { at: number; section: string | null }[]
    cacheableTokens: number | null
    warnings: { code: string; message: string; section?: string }[]
  }
  warnings: { code: string; message: string; section?: string }[]
  cuts?: { section: string; removedChars: number; dropped: boolean }[]
}

/** A session as `GET /api/sessions` lists it. */
export interface SessionSummary {
  id: string
  versions: number
  current: Omit<SessionVersion, 'compiled'>
  createdAt: string
}

/** §8 usage outcome. */
export interface UsageOutcome {
  version: number
  at: string
  provider: string
  model: string
  inputTokens: number
  cachedTokens: number
  cacheWriteTokens: number
  outcome: 'hot' | 'partial' | 'cold' | 'small'
  why?: string
}

export interface UsageResponse {
  outcomes: UsageOutcome[]
  hitRate: number | null
}

/** `GET /api/sessions/:id/diff?from&to`: the §5 analysis and where it lies. */
export interface DiffResponse {
  from: number
  to: number
  diff: PromptDiff
  /** The file the first changed byte came from, when known. */
  file: string | null
}
