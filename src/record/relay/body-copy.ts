/*
 * The recorder's copy of a body: the chunks as they pass, kept up to a cap
 * and dropped whole past it, then decoded off the hot path (gzip, br, zstd,
 * deflate; zlib's thread pool, output capped).
 */
import { promisify } from 'node:util'
import { brotliDecompress, gunzip, inflate, inflateRaw, type ZlibOptions, zstdDecompress } from 'node:zlib'
import type { CapturedBody } from './events.js'

/** The most bytes kept per body, on the wire and decoded: 64 MiB. */
export const BODY_CAP = 64 * 1024 * 1024

/** The chunks of one body as they passed, up to `cap` bytes; past it nothing is kept. */
export class BodyCopy {
  #chunks: Uint8Array[] = []
  #kept = 0
  /** Every byte seen, kept or not. */
  wireLength = 0
  truncated = false

  constructor(readonly cap: number = BODY_CAP) {}

  add(chunk: Uint8Array): void {
    this.wireLength += chunk.byteLength
    if (this.truncated) return
    if (this.#kept + chunk.byteLength > this.cap) {
      this.truncated = true
      this.#chunks = []
      this.#kept = 0
      return
    }
    this.#chunks.push(chunk)
    this.#kept += chunk.byteLength
  }

  /** Bytes kept (0 once truncated). */
  get kept(): number {
    return this.#kept
  }

  /** The kept bytes as one buffer. */
  bytes(): Buffer {
    return Buffer.concat(this.#chunks, this.#kept)
  }
}

type Decoder = (input: Buffer, options: ZlibOptions) => Promise<Buffer>

const DECODERS: ReadonlyMap<string, Decoder> = new Map<string, Decoder>([
  ['gzip', promisify(gunzip)],
  ['x-gzip', promisify(gunzip)],
  ['br', promisify(brotliDecompress) as Decoder],
  ['zstd', promisify(zstdDecompress) as Decoder],
  // HTTP's `deflate` is zlib-wrapped (RFC 9110 §8.4.1.2); some servers send it raw.
  [
    'deflate',
    (input, options) => promisify(inflate)(input, options).catch(() => promisify(inflateRaw)(input, options)),
  ],
])

function isTooLarge(error: unknown): boolean {
  return error instanceof RangeError || (error as { code?: unknown })?.code === 'ERR_BUFFER_TOO_LARGE'
}

/**
 * The recorded form of a copied body: decoded by its `Content-Encoding`
 * (codings applied in order, so undone last first), its output capped.
 */
export async function captureBody(
  copy: BodyCopy,
  contentEncoding: string | undefined,
): Promise<CapturedBody> {
  const encoding = contentEncoding?.trim() || undefined
  const base = { wireLength: copy.wireLength, ...(encoding === undefined ? {} : { encoding }) }
  if (copy.truncated) return { state: 'truncated', ...base }
  let bytes = copy.bytes()
  const codings = (encoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
  for (const coding of codings.reverse()) {
    const decode = DECODERS.get(coding)
    if (decode === undefined) return { state: 'undecodable', ...base }
    try {
      bytes = await decode(bytes, { maxOutputLength: copy.cap })
    } catch (error) {
      return { state: isTooLarge(error) ? 'too-large' : 'undecodable', ...base }
    }
  }
  return {
    state: 'complete',
    bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    ...base,
  }
}
