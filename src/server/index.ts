/**
 * `sysprompt/server`: the HTTP API of SPEC §10 (seed 000's transport
 * contract, sessions and usage, previews built by the `sysprompt show`
 * pipeline) on Hono, with its request schemas and the response types for
 * TypeScript clients.
 */
import type { z } from '@hono/zod-openapi'
import type * as schemas from './schemas.js'

export { createServerApp, type ServerApp, type ServerAppOptions } from './app.js'
export { ApiError, type ApiErrorBody } from './errors.js'
export { isLoopbackHost, MAX_BODY_BYTES, MAX_URL_CHARS } from './guard.js'
export { SESSION_ID } from './schemas.js'
export {
  DEFAULT_PORT,
  REQUEST_TIMEOUT_MS,
  type RunningServer,
  ServerStartError,
  type StartServerOptions,
  startServer,
} from './start.js'

/** `GET /api/template` and `PUT /api/template`: seed 000's SystemPromptTemplateResponse. */
export type SystemPromptTemplateResponse = z.infer<typeof schemas.TemplateResponse>
/** `PUT /api/template` body: seed 000's SetSystemPromptTemplateRequest. */
export type SetSystemPromptTemplateRequest = z.input<typeof schemas.SetTemplateRequest>
/** One entry of `GET /api/variables`: seed 000's SystemPromptVariable. */
export type SystemPromptVariable = z.infer<typeof schemas.Variable>
/** `GET /api/variables`: seed 000's SystemPromptVariablesResponse. */
export type SystemPromptVariablesResponse = z.infer<typeof schemas.VariablesResponse>
/** What a prompt is built for (cwd, paths, model, preset, …), in preview and session requests. */
export type PromptContext = z.input<typeof schemas.PromptContext>
/** `POST /api/preview` body. */
export type PreviewRequest = z.input<typeof schemas.PreviewRequest>
/** `POST /api/preview` answer. */
export type PreviewResponse = z.infer<typeof schemas.PreviewResponse>
/** A template diagnostic with the line and column of its file. */
export type ApiDiagnostic = z.infer<typeof schemas.Diagnostic>
/** `PUT /api/sessions/:id` body. */
export type PutSessionRequest = z.input<typeof schemas.PutSessionRequest>
/** `PUT` and `GET /api/sessions/:id` answer. */
export type SessionResponse = z.infer<typeof schemas.SessionResponse>
/** `POST /api/sessions/:id/recompile` body. */
export type RecompileRequest = z.input<typeof schemas.RecompileRequest>
/** `POST /api/sessions/:id/recompile` answer. */
export type RecompileResponse = z.infer<typeof schemas.RecompileResponse>
/** `GET /api/sessions/:id/history` answer. */
export type HistoryResponse = z.infer<typeof schemas.HistoryResponse>
/** `GET /api/sessions/:id/diff?from&to` answer. */
export type DiffResponse = z.infer<typeof schemas.DiffResponse>
/** One entry of `GET /api/sessions`. */
export type SessionSummaryResponse = z.infer<typeof schemas.SessionSummary>
/** `GET /api/sessions` answer. */
export type SessionsResponse = z.infer<typeof schemas.SessionsResponse>
/** `POST /api/sessions/:id/usage` body. */
export type UsageReportRequest = z.input<typeof schemas.UsageReportRequest>
/** `GET` and `POST /api/sessions/:id/usage` answer. */
export type UsageResponse = z.infer<typeof schemas.UsageResponse>
