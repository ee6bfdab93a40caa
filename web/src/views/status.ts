/** Shared bits of every view: loading and error notices. */
import { ApiError } from '../api.js'
import { h } from '../dom.js'

/** A polite "working" line. */
export function loading(text: string): HTMLElement {
  return h('p', { class: 'muted', role: 'status' }, text)
}

/** An error as one alert line: the API's code and message. */
export function errorBox(error: unknown): HTMLElement {
  const text =
    error instanceof ApiError
      ? `${error.message} (${error.code}${error.status ? `, HTTP ${error.status}` : ''})`
      : error instanceof Error
        ? error.message
        : String(error)
  return h('p', { class: 'error', role: 'alert' }, text)
}
