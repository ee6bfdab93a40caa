import { createRoute, type z } from '@hono/zod-openapi'
import {
  DiffQuery,
  DiffResponse,
  ErrorBody,
  HealthResponse,
  HistoryResponse,
  InspectQuery,
  InspectResponse,
  PreviewRequest,
  PreviewResponse,
  PutSessionRequest,
  RecompileRequest,
  RecompileResponse,
  SessionParams,
  SessionResponse,
  SessionsQuery,
  SessionsResponse,
  SetTemplateRequest,
  TemplateResponse,
  UsageReportRequest,
  UsageResponse,
  VariablesResponse,
} from './schemas.js'

/** The route table of SPEC §10, as OpenAPI route configs (validation and the document come from these). */

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
})
const body = <T extends z.ZodType>(schema: T) => ({
  body: { content: { 'application/json': { schema } }, required: true },
})
const errors = {
  400: json(ErrorBody, 'malformed JSON, a wrong field, a bad query or session id'),
  401: json(ErrorBody, 'a bearer token is required off loopback'),
  413: json(ErrorBody, 'the body is over 1 MiB'),
  415: json(ErrorBody, 'the body is not JSON'),
}

export const healthRoute = createRoute({
  method: 'get',
  path: '/healthz',
  responses: { 200: json(HealthResponse, 'the server is up') },
})

export const getTemplateRoute = createRoute({
  method: 'get',
  path: '/api/template',
  responses: {
    200: json(TemplateResponse, 'the served template (`isDefault` when none is saved)'),
    ...errors,
  },
})

export const putTemplateRoute = createRoute({
  method: 'put',
  path: '/api/template',
  request: body(SetTemplateRequest),
  responses: {
    200: json(TemplateResponse, 'saved; lenient diagnostics beside it'),
    409: json(ErrorBody, 'a stale `expectedHash`; `details.currentHash` is the current one'),
    422: json(ErrorBody, 'a template that cannot be used; `details` lists diagnostics with line and column'),
    ...errors,
  },
})

export const variablesRoute = createRoute({
  method: 'get',
  path: '/api/variables',
  responses: {
    200: json(VariablesResponse, 'every variable the resolvers answer, with current values'),
    ...errors,
  },
})

export const previewRoute = createRoute({
  method: 'post',
  path: '/api/preview',
  request: body(PreviewRequest),
  responses: {
    200: json(PreviewResponse, 'the compiled prompt `sysprompt show` would print, and the diagnostics'),
    422: json(ErrorBody, 'the template cannot be used; `details` lists diagnostics'),
    ...errors,
  },
})

export const inspectRoute = createRoute({
  method: 'get',
  path: '/api/inspect',
  request: { query: InspectQuery },
  responses: {
    200: json(InspectResponse, 'what `sysprompt inspect --json` reports for the served workspace'),
    422: json(ErrorBody, 'the prompt cannot be built'),
    ...errors,
  },
})

export const listSessionsRoute = createRoute({
  method: 'get',
  path: '/api/sessions',
  request: { query: SessionsQuery },
  responses: { 200: json(SessionsResponse, 'sessions, most recently changed first'), ...errors },
})

export const putSessionRoute = createRoute({
  method: 'put',
  path: '/api/sessions/{id}',
  request: { params: SessionParams, ...body(PutSessionRequest) },
  responses: {
    200: json(
      SessionResponse,
      'the session prompt: the stored one when it exists (byte-identical), else built',
    ),
    422: json(ErrorBody, 'the prompt cannot be built'),
    409: json(ErrorBody, 'the session is a recording (`sysprompt record`), which no request changes'),
    ...errors,
  },
})

export const getSessionRoute = createRoute({
  method: 'get',
  path: '/api/sessions/{id}',
  request: { params: SessionParams },
  responses: {
    200: json(SessionResponse, 'the current prompt of the session'),
    404: json(ErrorBody, 'no such session'),
    ...errors,
  },
})

export const recompileRoute = createRoute({
  method: 'post',
  path: '/api/sessions/{id}/recompile',
  request: { params: SessionParams, ...body(RecompileRequest) },
  responses: {
    200: json(RecompileResponse, 'a new version only when the hash changed'),
    422: json(ErrorBody, 'the prompt cannot be built'),
    409: json(ErrorBody, 'the session is a recording (`sysprompt record`), which no request changes'),
    ...errors,
  },
})

export const historyRoute = createRoute({
  method: 'get',
  path: '/api/sessions/{id}/history',
  request: { params: SessionParams },
  responses: {
    200: json(HistoryResponse, 'every version, oldest first'),
    404: json(ErrorBody, 'no such session'),
    ...errors,
  },
})

export const diffRoute = createRoute({
  method: 'get',
  path: '/api/sessions/{id}/diff',
  request: { params: SessionParams, query: DiffQuery },
  responses: {
    200: json(DiffResponse, 'the §5 prompt-cache analysis of two versions'),
    404: json(ErrorBody, 'no such session or version'),
    ...errors,
  },
})

export const postUsageRoute = createRoute({
  method: 'post',
  path: '/api/sessions/{id}/usage',
  request: { params: SessionParams, ...body(UsageReportRequest) },
  responses: {
    200: json(UsageResponse, 'recorded; the outcomes so far and the hit rate'),
    404: json(ErrorBody, 'no such session'),
    409: json(ErrorBody, 'the session is a recording (`sysprompt record`): its usage comes from its calls'),
    ...errors,
  },
})

export const getUsageRoute = createRoute({
  method: 'get',
  path: '/api/sessions/{id}/usage',
  request: { params: SessionParams },
  responses: {
    200: json(UsageResponse, 'the cache outcomes of the calls recorded, and the hit rate'),
    404: json(ErrorBody, 'no such session'),
    ...errors,
  },
})
