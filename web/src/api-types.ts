/**
 * The shapes of the HTTP API (SPEC §10) as the page reads them: the types
 * `sysprompt/server` exports for its clients (inferred from the schemas
 * that validate the requests), so a change there breaks the page's
 * typecheck rather than the page.
 */

import type { CompiledPrompt, PromptDiff, SessionVersion } from '../../src/compile/types.js'
import type { InspectData } from '../../src/node/report/inspect-data.js'
import type { Stability } from '../../src/registry/types.js'
import type {
  ApiDiagnostic as Diagnostic,
  DiffResponse,
  HistoryResponse,
  PreviewRequest,
  PreviewResponse,
  SessionSummaryResponse,
  SessionsResponse,
  SetSystemPromptTemplateRequest,
  SystemPromptTemplateResponse,
  SystemPromptVariable,
  SystemPromptVariablesResponse,
  UsageReportRequest,
  UsageResponse,
} from '../../src/server/index.js'

export type { CompiledPrompt, Diagnostic, PromptDiff, SessionVersion, Stability }

export type Dialect = 'mustache' | 'bracket'
export type Provider = 'anthropic' | 'openai' | 'gemini'

/** Every error the API sends: `{ error: { code, message, details? } }`. */
export interface ApiErrorBody {
  error: { code: string; message: string; details?: unknown }
}

/** `GET` and `PUT /api/template` (seed 000's SystemPromptTemplateResponse). */
export type TemplateResponse = SystemPromptTemplateResponse
/** `PUT /api/template` body (SetSystemPromptTemplateRequest). */
export type SetTemplateRequest = SetSystemPromptTemplateRequest
/** One entry of `GET /api/variables` (SystemPromptVariable). */
export type Variable = SystemPromptVariable
export type { PreviewRequest, PreviewResponse, SystemPromptVariablesResponse as VariablesResponse }

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
    /** What the cache block describes: sysprompt's prompt, or what the harness of the mode sends. */
    view?: 'prompt' | 'harness'
    /** Tokens of that text, the block's one total. */
    tokens?: number
    provider: string | null
    model: string | null
    /** Where the provider came from; `none`: nothing named one, so `provider` and `minTokens` are placeholders. */
    providerFrom?: 'option' | 'mode' | 'none'
    minTokens: number | null
    breakpoints: { at: number; section: string | null }[]
    cacheableTokens: number | null
    warnings: { code: string; message: string; section?: string }[]
  }
  warnings: { code: string; message: string; section?: string }[]
  /** The first screen: a line per harness in use, then the readers of AGENTS.md (null when a mode was chosen on the command line). */
  harnesses?:
    | {
        label: string
        modes: string[]
        because: string[]
        start: { files: number; filesMax: number; tokens: number; tokensMax: number }
        cut: { file: string; line?: number }[]
        onDemand: { files: number; tokens: number }
        onRequest: number
        skills: { count: number; startTokens: number; bodyTokens: number }
      }[]
    | null
  skills?:
    | { name: string; shown: string; readers: string[]; startTokens: number; bodyTokens: number }[]
    | null
  neverLoaded?: { shown: string; reason: string; message: string }[] | null
  cuts?: { section: string; removedChars: number; dropped: boolean }[]
}

/** A session as `GET /api/sessions` lists it. */
export type SessionSummary = SessionSummaryResponse
/** §8 usage outcome. */
export type UsageOutcome = UsageResponse['outcomes'][number]
export type { DiffResponse, HistoryResponse, SessionsResponse, UsageReportRequest, UsageResponse }

/** The server's inspect report fits the page's reading of it (checked by the compiler only). */
export type InspectFits = InspectData extends InspectResponse ? true : never
const inspectFits: InspectFits = true
void inspectFits
