/**
 * `sysprompt/record` (SPEC §1, §11): what `sysprompt record` is made of, for
 * a harness author who wants its recordings in their own process: the
 * loopback relay, the pure request and response parsers, the recorder that
 * turns relay events into ledger calls, how each harness is pointed at the
 * relay, and the drift check. The recorded types (`CallRecord`) and the
 * colder-call engine are in `sysprompt`.
 */
export { checkDrift, type DriftInput, type DriftVerdict, driftText } from './drift.js'
export {
  MAX_BODY_BYTES,
  type ParsedPart,
  type ParsedRequest,
  type ParsedResponse,
  type ParseFailure,
  parseRequest,
  parseResponse,
  prefixHash,
  toRecordedPart,
} from './parse/index.js'
export {
  CODEX_PROVIDER,
  noProxyWithLoopback,
  type Pointing,
  pointHarness,
  RECORD_HARNESSES,
  type RecordHarness,
  RecordRefusal,
  recogniseHarness,
} from './pointing.js'
export {
  type ColderCall,
  createRecorder,
  type DriftRequest,
  type Recorder,
  type RecorderOptions,
  type RecordSummary,
  versionFromUserAgent,
} from './recorder.js'
export {
  DEFAULT_UPSTREAMS,
  DIAGNOSIS_BETA,
  type HttpExchange,
  type Relay,
  type RelayEvent,
  type RelayOptions,
  startRelay,
  type UpstreamOptions,
  UpstreamUrlError,
} from './relay/index.js'
