/** The body of `GET /healthz`: the process is up and serving. */
export function health(): { ok: true } {
  return { ok: true }
}
