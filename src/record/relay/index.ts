/*
 * The loopback relay of `sysprompt record` (SPEC §11): the public names the
 * command line wires.
 */

export { BODY_CAP } from './body-copy.js'
export { DIAGNOSED_CONVERSATIONS, DIAGNOSIS_BETA } from './diagnose.js'
export { endpointOf, type RouteMatch, routeOf } from './endpoints.js'
export type { CapturedBody, HttpExchange, RelayEvent, WsClose, WsFrame, WsOpen } from './events.js'
export { CREDENTIAL_HEADERS, HOP_BY_HOP } from './headers.js'
export { type Relay, type RelayOptions, startRelay } from './relay.js'
export { DEFAULT_UPSTREAMS, type UpstreamOptions, UpstreamUrlError } from './upstreams.js'
