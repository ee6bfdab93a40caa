import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import type { PromptStore } from '../compile/index.js'
import { closeServerApp, createServerApp, type ServerApp, type ServerAppOptions } from './app.js'
import { errorJson } from './errors.js'
import { type BoundAddress, isLoopbackHost } from './guard.js'

/** The default port of `sysprompt serve`. */
export const DEFAULT_PORT = 4319
/** A request (headers and body) must arrive within this many ms (SPEC §10 decisions). */
export const REQUEST_TIMEOUT_MS = 10_000

/** What {@link startServer} listens with, on top of the app's options. */
export interface StartServerOptions extends Omit<ServerAppOptions, 'bound'> {
  /** Defaults to `127.0.0.1`. Any other host requires `token`. */
  host?: string
  /** Defaults to 4319; `0` picks a free port. */
  port?: number
  /** How long a request may take to arrive, in ms; defaults to {@link REQUEST_TIMEOUT_MS}. */
  requestTimeoutMs?: number
  /** Mounts more routes (the page) on the app before it listens. */
  extend?: (app: ServerApp) => void
}

/** A listening server. */
export interface RunningServer {
  /** `http://host:port`, the address it listens on. */
  url: string
  port: number
  app: ServerApp
  /**
   * Stops accepting connections, lets in-flight requests finish, closes
   * idle keep-alive connections, stops the worker threads, then closes the
   * store.
   */
  close(): Promise<void>
}

/** Refusing to start: a host off loopback without a token. */
export class ServerStartError extends Error {
  override readonly name = 'ServerStartError'
}

function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

/**
 * Starts the HTTP API (SPEC §10) on Node's HTTP server. Bound to
 * 127.0.0.1 by default; any other host needs a bearer token, else it
 * refuses to start. A slow client cannot hold the server: headers and
 * body must arrive within `requestTimeoutMs`, checked every second, and
 * a request Node cannot parse (a URL or headers over its limits) is
 * answered with the API's JSON error body.
 */
export async function startServer(
  options: StartServerOptions & { store: PromptStore },
): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1'
  const loopback = isLoopbackHost(host)
  if (!loopback && (options.token === undefined || options.token.length === 0)) {
    throw new ServerStartError(
      `refusing to listen on ${host} without a token; pass --token-file FILE or set SYSPROMPT_TOKEN (or bind to 127.0.0.1)`,
    )
  }
  const bound: BoundAddress = { port: undefined }
  const app = createServerApp({ ...options, bound })
  options.extend?.(app)
  const timeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve(
      {
        fetch: app.fetch,
        hostname: host,
        port: options.port ?? DEFAULT_PORT,
        serverOptions: {
          requestTimeout: timeout,
          headersTimeout: Math.min(timeout, 60_000),
          connectionsCheckingInterval: Math.min(1000, timeout),
          keepAliveTimeout: 5000,
        },
      },
      () => resolve(s as Server),
    ) as Server
    s.once('error', reject)
  })
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy()
    const status =
      error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400
    const reason =
      status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'
    const code = status === 431 ? 'headers-too-large' : status === 408 ? 'request-timeout' : 'bad-request'
    const message =
      status === 431
        ? 'the URL or headers are too large; send less'
        : status === 408
          ? `the request did not arrive within ${timeout} ms`
          : 'the request could not be parsed as HTTP'
    const body = errorJson(code, message)
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  })
  const address = server.address() as AddressInfo
  bound.port = address.port
  let closing: Promise<void> | undefined
  return {
    url: `http://${urlHost(host)}:${address.port}`,
    port: address.port,
    app,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          // Connections that finish their request go idle later: close those too as they do.
          const sweep = setInterval(() => server.closeIdleConnections(), 50)
          server.close(() => {
            clearInterval(sweep)
            resolve()
          })
          server.closeIdleConnections()
        })
        await closeServerApp(app)
        await options.store.close?.()
      })()
      return closing
    },
  }
}
