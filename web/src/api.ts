/**
 * The page's typed client of the HTTP API (SPEC §10). Same origin only: the
 * page makes no other request.
 */
import type {
  ApiErrorBody,
  DiffResponse,
  HistoryResponse,
  InspectResponse,
  PreviewRequest,
  PreviewResponse,
  SessionsResponse,
  SetTemplateRequest,
  TemplateResponse,
  UsageResponse,
  VariablesResponse,
} from './api-types.js'

/** An error response of the API, or a request that never got one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

function isErrorBody(body: unknown): body is ApiErrorBody {
  const error = (body as ApiErrorBody | null)?.error
  return typeof error === 'object' && error !== null && typeof error.message === 'string'
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch (cause) {
    throw new ApiError(
      0,
      'network',
      `The server did not answer ${method} ${path}; is \`sysprompt serve\` still running?`,
      cause,
    )
  }
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === '' ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (!response.ok) {
    if (isErrorBody(parsed)) {
      throw new ApiError(response.status, parsed.error.code, parsed.error.message, parsed.error.details)
    }
    throw new ApiError(response.status, 'http', `${method} ${path} answered ${response.status}`)
  }
  return parsed as T
}

const enc = encodeURIComponent

/** Query string of the defined entries, `''` when none. */
function query(params: Record<string, string | number | undefined>): string {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== '')
  return entries.length === 0 ? '' : `?${entries.map(([k, v]) => `${k}=${enc(String(v))}`).join('&')}`
}

/** The API, one method per route the page uses. */
export const api = {
  inspect: (options: { provider?: string; model?: string; mode?: string } = {}) =>
    call<InspectResponse>('GET', `/api/inspect${query(options)}`),
  template: () => call<TemplateResponse>('GET', '/api/template'),
  saveTemplate: (request: SetTemplateRequest) => call<TemplateResponse>('PUT', '/api/template', request),
  variables: () => call<VariablesResponse>('GET', '/api/variables'),
  preview: (request: PreviewRequest) => call<PreviewResponse>('POST', '/api/preview', request),
  sessions: () => call<SessionsResponse>('GET', '/api/sessions'),
  history: (id: string) => call<HistoryResponse>('GET', `/api/sessions/${enc(id)}/history`),
  usage: (id: string) => call<UsageResponse>('GET', `/api/sessions/${enc(id)}/usage`),
  diff: (id: string, from: number, to: number) =>
    call<DiffResponse>('GET', `/api/sessions/${enc(id)}/diff${query({ from, to })}`),
}
