import { OpenAPIHono } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import {
  createSessionPrompts,
  diffCompiled,
  type PromptStore,
  StoreConflictError,
  StoreError,
  summariseUsage,
} from '../compile/index.js'
import { LruCache } from '../shared/lru-cache.js'
import { ApiError, errorResponse } from './errors.js'
import { type BoundAddress, checkJsonBody, checkLoopbackHost, limitUrl, requireToken } from './guard.js'
import { createPageHandler } from './page.js'
import * as routes from './routes.js'
import { DEFAULT_WORKERS, WorkPool } from './work-pool.js'
import { type Context, Workspace } from './workspace.js'

/** What {@link createServerApp} serves. */
export interface ServerAppOptions {
  /** The served project root, absolute and real. */
  root: string
  /** Where sessions, usage and workspace templates persist. */
  store: PromptStore
  /** A bearer token every `/api` route requires; required off loopback (`startServer` refuses to start without one). */
  token?: string
  /** On loopback without a token, `Host` and `Origin` must name this port (filled in by `startServer` once it listens). */
  bound?: BoundAddress
  /** Serve the template of this workspace from the store instead of `.sysprompt/template.md`. */
  workspace?: string
  /** The environment the pipeline reads (user fragment directories); defaults to `process.env`. */
  env?: Record<string, string | undefined>
  /** Environment variables `env:NAME` may read; none by default. */
  envAllowlist?: string[]
  /** One line per request (`METHOD path status ms`); none when absent. */
  log?: (line: string) => void
  /**
   * Worker threads that build prompts (previews, sessions, inspect,
   * variables), so that a heavy request leaves the event loop to the
   * others; default 2. `0` builds on the event loop's thread.
   */
  workers?: number
}

/** The Hono app of {@link createServerApp}: mount more routes on it (the page's `/` and static assets). */
export type ServerApp = OpenAPIHono

const requestLog =
  (log: (line: string) => void): MiddlewareHandler =>
  async (c, next) => {
    const started = performance.now()
    await next()
    const ms = (performance.now() - started).toFixed(1)
    log(`${c.req.method} ${c.req.path} ${c.res.status} ${ms}ms`)
  }

/** Maps the library's errors to API errors; anything else is a 500 without internals. */
function apiErrorOf(error: unknown): ApiError {
  if (error instanceof ApiError) return error
  if (error instanceof StoreConflictError) {
    return new ApiError(409, 'conflict', error.message, { currentHash: error.actualHash })
  }
  if (error instanceof StoreError) {
    if (error.code === 'not-found') return new ApiError(404, 'not-found', error.message)
    if (error.code === 'invalid') return new ApiError(400, 'invalid-request', error.message)
    return new ApiError(503, 'store-unavailable', error.message)
  }
  return new ApiError(500, 'internal', 'the server failed on this request; see its log')
}

/**
 * The HTTP API of SPEC §10 over the served project (`root`): seed 000's
 * template and variables contract, previews and session prompts built by
 * the same pipeline as `sysprompt show`, usage outcomes, the inspect
 * report, and `GET /api/openapi.json` generated from the schemas that
 * validate the requests.
 *
 * Every `/api` route runs behind the guards: a bearer token when one is
 * set, else the loopback `Host`/`Origin` check; URLs over 8 KiB are 414;
 * bodies must be JSON (415), parse (400) and stay within 1 MiB (413).
 * Errors are always `{ error: { code, message, details? } }`.
 *
 * The page of the next issue mounts on the returned app: `/` and its
 * static assets go after the API routes (see the end of this function);
 * unknown `/api` paths stay JSON 404s.
 */
export function createServerApp(options: ServerAppOptions): ServerApp {
  const { store } = options
  const pool = new WorkPool({ size: options.workers ?? DEFAULT_WORKERS })
  const workspace = new Workspace({
    pool,
    root: options.root,
    store,
    env: options.env ?? process.env,
    envAllowlist: options.envAllowlist ?? [],
    ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
  })
  const sessions = createSessionPrompts<Context>({
    store,
    build: async (ctx) => (await workspace.work('compile', ctx)).compiled,
  })

  const app: ServerApp = new OpenAPIHono({
    defaultHook: (result) => {
      if (!result.success) {
        const issues = result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }))
        const first = issues[0]
        const where = first === undefined ? result.target : `${result.target} ${first.path || '(root)'}`
        throw new ApiError(400, 'invalid-request', `${where}: ${first?.message ?? 'invalid'}`, issues)
      }
    },
  })
  app.onError((error, c) => {
    const api = apiErrorOf(error)
    if (api.status >= 500)
      options.log?.(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    return errorResponse(c, api)
  })
  app.notFound((c) =>
    errorResponse(c, new ApiError(404, 'not-found', `no route ${c.req.method} ${c.req.path}`)),
  )

  if (options.log !== undefined) app.use('*', requestLog(options.log))
  app.use('*', limitUrl)
  app.use(
    '/api/*',
    options.token === undefined
      ? checkLoopbackHost(options.bound ?? { port: undefined })
      : requireToken(options.token),
  )
  app.use('/api/*', checkJsonBody())

  app.openapi(routes.healthRoute, (c) => c.json({ ok: true as const }, 200))

  app.openapi(routes.getTemplateRoute, async (c) => {
    const served = await workspace.template()
    const diagnostics = served.isDefault ? [] : await workspace.diagnostics(served.template, served.dialect)
    return c.json({ ...served, diagnostics }, 200)
  })

  app.openapi(routes.putTemplateRoute, async (c) => {
    const { template, dialect, expectedHash } = c.req.valid('json')
    // Refuse a template that cannot be used before anything is written. The file may carry front matter
    // the client never sent (its dialect): positions are moved back into the text the client sent.
    const file = workspace.savedText(template, dialect)
    const toSent = inSentText(file, template)
    const { diagnostics } = await workspace
      .work('compile', {}, { text: file, dialect })
      .catch((e: unknown) => {
        throw e instanceof ApiError && Array.isArray(e.details)
          ? new ApiError(e.status, e.code, e.message, e.details.map(toSent))
          : e
      })
    const saved = await workspace.saveTemplate(template, dialect, expectedHash)
    return c.json({ ...saved, diagnostics: diagnostics.map(toSent) }, 200)
  })

  app.openapi(routes.variablesRoute, async (c) => {
    const { variables } = await workspace.work('variables', {})
    return c.json({ variables }, 200)
  })

  app.openapi(routes.previewRoute, async (c) => {
    const { template, dialect, context } = c.req.valid('json')
    const text =
      template === undefined ? undefined : { text: template, ...(dialect === undefined ? {} : { dialect }) }
    const { compiled, diagnostics } = await workspace.work('compile', context, text)
    return c.json({ compiled, diagnostics }, 200)
  })

  app.openapi(routes.inspectRoute, async (c) => {
    const data = await workspace.work('inspect', c.req.valid('query'))
    return c.json(data, 200)
  })

  app.openapi(routes.listSessionsRoute, async (c) => {
    const list = (store as { listSessions?: (o: { limit?: number }) => Promise<SessionSummaryRow[]> })
      .listSessions
    if (list === undefined) {
      throw new ApiError(
        501,
        'not-supported',
        'this store cannot list sessions; serve with the SQLite or PostgreSQL store',
      )
    }
    const { limit } = c.req.valid('query')
    const rows = await list.call(store, limit === undefined ? {} : { limit })
    const sessions = rows.map((r) => ({
      id: r.id,
      versions: r.versions,
      current: { version: r.versions, hash: r.hash, tokens: r.tokens, reason: r.reason, at: r.updatedAt },
      createdAt: r.createdAt,
    }))
    return c.json({ sessions }, 200)
  })

  // The version number of each session's current prompt, beside the session service's own cache of
  // the prompt, so a `GET` is a cached read (SPEC §5) like `sessions.get`, without a store round trip.
  const versions = new LruCache<string, { version: number; hash: string }>(1024)
  const missing = (id: string) =>
    new ApiError(404, 'not-found', `no session ${id}; create it with PUT /api/sessions/${id}`)
  // Sessions known to hold prompts: a session's kind is set when it is created and never changes, so a
  // write checks the store for a recording once per session, not on every request.
  const prompts = new LruCache<string, true>(4096)
  const current = async (id: string) => {
    const record = await store.getSession(id)
    if (record === undefined) throw missing(id)
    versions.set(id, { version: record.current.version, hash: record.current.hash })
    if (record.kind === undefined) prompts.set(id, true)
    return record
  }
  /** Session writes refuse a recording: its versions are what a harness sent, not prompts built here. */
  const refuseRecording = async (id: string, what: string) => {
    if (prompts.get(id) !== undefined) return
    const record = await store.getSession(id)
    if (record === undefined) return
    if (record.kind === 'recording') {
      throw new ApiError(
        409,
        'recording',
        `session ${id} is a recording of what a harness sent, which ${what} cannot change; read it with GET /api/sessions/${id}/history, or use another id for a session of your own`,
      )
    }
    prompts.set(id, true)
  }
  app.openapi(routes.putSessionRoute, async (c) => {
    const { id } = c.req.valid('param')
    const { context } = c.req.valid('json')
    await refuseRecording(id, 'PUT')
    const compiled = await sessions.construct(id, context)
    const record = await current(id)
    return c.json({ id, version: record.current.version, compiled }, 200)
  })

  app.openapi(routes.getSessionRoute, async (c) => {
    const { id } = c.req.valid('param')
    const compiled = await sessions.get(id)
    if (compiled === undefined) throw missing(id)
    let known = versions.get(id)
    if (known?.hash !== compiled.hash) {
      const record = await current(id)
      known = { version: record.current.version, hash: record.current.hash }
      if (record.current.hash !== compiled.hash) {
        // Another process appended a version: answer what the store holds now.
        return c.json({ id, version: record.current.version, compiled: record.current.compiled }, 200)
      }
    }
    return c.json({ id, version: known.version, compiled }, 200)
  })

  app.openapi(routes.recompileRoute, async (c) => {
    const { id } = c.req.valid('param')
    const { context, reason } = c.req.valid('json')
    await refuseRecording(id, 'recompile')
    const result = await sessions.recompile(id, context, reason)
    const record = await current(id)
    return c.json({ id, version: record.current.version, ...result }, 200)
  })

  app.openapi(routes.historyRoute, async (c) => {
    const { id } = c.req.valid('param')
    await current(id)
    return c.json({ versions: await sessions.history(id) }, 200)
  })

  app.openapi(routes.diffRoute, async (c) => {
    const { id } = c.req.valid('param')
    const { from, to } = c.req.valid('query')
    await current(id)
    const history = await sessions.history(id)
    const pick = (n: number) => {
      const found = history.find((v) => v.version === n)
      if (found === undefined)
        throw new ApiError(404, 'not-found', `session ${id} has no version ${n} (it has 1–${history.length})`)
      return found.compiled
    }
    const a = pick(from)
    const b = pick(to)
    const diff = diffCompiled(a, b)
    const entry = diff.section === null ? undefined : b.manifest.find((m) => m.id === diff.section)
    return c.json({ from, to, diff, file: entry?.source ?? null }, 200)
  })

  const usageBody = async (id: string) => {
    const outcomes = await sessions.usage(id)
    const summary = summariseUsage(outcomes, [])
    return { outcomes, hitRate: outcomes.length === 0 ? null : summary.hitRate }
  }

  app.openapi(routes.postUsageRoute, async (c) => {
    const { id } = c.req.valid('param')
    const { usage, provider, model, hash, ttl } = c.req.valid('json')
    await current(id)
    await refuseRecording(id, 'a usage report')
    await sessions.recordUsage(id, usage, {
      provider,
      model,
      ...(hash === undefined ? {} : { hash }),
      ...(ttl === undefined ? {} : { ttl }),
    })
    return c.json(await usageBody(id), 200)
  })

  app.openapi(routes.getUsageRoute, async (c) => {
    const { id } = c.req.valid('param')
    await current(id)
    return c.json(await usageBody(id), 200)
  })

  app.doc('/api/openapi.json', {
    openapi: '3.0.0',
    info: {
      title: 'sysprompt',
      version: '1',
      description:
        'The system prompt of a project over HTTP (SPEC §10): template, variables, preview, sessions, usage.',
    },
  })

  pools.set(app, pool)

  // The page (`/` and its static assets) mounts here, after the API routes.
  const page = createPageHandler()
  app.use('*', async (c, next) => {
    const response = await page(c.req.raw)
    if (response !== undefined) return response
    await next()
  })
  return app
}

const pools = new WeakMap<ServerApp, WorkPool>()

/**
 * Stops the worker threads of an app made by {@link createServerApp}
 * (`startServer`'s `close` does, after the requests in flight); requests
 * after it are 503. Idle workers do not keep a process alive, so an app
 * that is simply dropped needs no call.
 */
export async function closeServerApp(app: ServerApp): Promise<void> {
  await pools.get(app)?.close()
}

interface SessionSummaryRow {
  id: string
  versions: number
  hash: string
  tokens: number
  reason: string
  createdAt: string
  updatedAt: string
}

/**
 * Moves a position in `file` (the saved template file) back into `sent`,
 * the text the client sent, which `file` ends with: by the lines of front
 * matter written before it. A position inside that front matter (never the
 * client's) is given as line 1.
 */
function inSentText(file: string, sent: string): <T>(d: T) => T {
  const added = file.endsWith(sent) ? file.slice(0, file.length - sent.length).split('\n').length - 1 : 0
  return <T>(d: T): T => {
    const line = (d as { line?: unknown } | null)?.line
    return added === 0 || typeof line !== 'number' ? d : { ...d, line: Math.max(1, line - added) }
  }
}
