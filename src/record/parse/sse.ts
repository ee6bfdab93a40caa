/**
 * Server-sent events, framed as the WHATWG HTML standard says (§9.2.6):
 * lines end in CRLF, LF or CR; `field: value` with one leading space
 * dropped; `data` lines joined by a line break; a blank line dispatches; a
 * line starting with `:` is a comment. No parser is in our dependencies and
 * the framing is this small, so it is written here; the data of each event
 * goes to the JSON parser, never parsed by hand. Unlike a browser, an event
 * left without its blank line at the end of the body is still dispatched:
 * a recorded stream cut at the end keeps its last event.
 */

/** One event of a stream. */
export interface SseEvent {
  /** The `event:` field (`message` when absent). */
  event: string
  data: string
}

/** The events of a whole SSE body, in order. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = []
  let event = ''
  let data: string[] = []
  const dispatch = () => {
    if (data.length > 0) events.push({ event: event === '' ? 'message' : event, data: data.join('\n') })
    event = ''
    data = []
  }
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      dispatch()
      continue
    }
    if (line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') data.push(value)
    else if (field === 'event') event = value
  }
  dispatch()
  return events
}
