/*
 * The client side of the relay's tests: requests through the relay with
 * undici (no decompression, so the bytes compared are the bytes sent), and
 * a relay whose recorded events the test can wait for.
 */
import { request } from 'undici'
import type { RelayEvent } from './events.js'
import { type Relay, type RelayOptions, startRelay } from './relay.js'

export interface Received {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

/** One request through the relay, its whole response read. */
export async function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<Received> {
  const response = await request(url, {
    method: (init.method ?? (init.body === undefined ? 'GET' : 'POST')) as 'GET',
    headers: init.headers ?? {},
    body: init.body ?? null,
  })
  const body = Buffer.from(await response.body.arrayBuffer())
  return { status: response.statusCode, headers: response.headers, body }
}

/** A relay that keeps every recorded event, and lets a test wait for the n-th. */
export interface RecordingRelay {
  relay: Relay
  events: RelayEvent[]
  /** Resolves once `count` events have been recorded. */
  recorded(count: number): Promise<RelayEvent[]>
}

export async function startRecordingRelay(options: RelayOptions = {}): Promise<RecordingRelay> {
  const events: RelayEvent[] = []
  const waiters: Array<{ count: number; resolve: (events: RelayEvent[]) => void }> = []
  const relay = await startRelay({
    ...options,
    onExchange: async (event) => {
      await options.onExchange?.(event)
      events.push(event)
      for (const waiter of waiters.filter((w) => events.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(events)
      }
    },
  })
  return {
    relay,
    events,
    recorded: (count) =>
      events.length >= count
        ? Promise.resolve(events)
        : new Promise((resolve) => {
            waiters.push({ count, resolve })
          }),
  }
}
