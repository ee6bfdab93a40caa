/* The streams and environment a command writes to, as types: `output.ts` and `sanitize.ts` both take them. */

/** One output stream: `isTTY` and `columns` as a Node stream has them. */
export interface OutStream {
  write(text: string): unknown
  /** Writes `text` unchanged, where `write` sanitizes (the streams `run` hands to commands; see `sanitize.ts`). */
  exact?(text: string): unknown
  isTTY?: boolean
  columns?: number
}

/** Where a command writes: the streams (a `isTTY` flag on stdout decides colours) and the environment. */
export interface Io {
  stdout: OutStream
  stderr: OutStream
  env: Record<string, string | undefined>
  /** The shell's working directory: paths on the command line are relative to it. */
  cwd: string
}
