import { stat } from 'node:fs/promises'
import { isAbsolute } from 'node:path'
import { groupDigits } from '../../compile/numbers.js'
import { openStore, type PersistentPromptStore } from '../../store/index.js'
import type { CommandContext } from '../command.js'
import { EXIT, UsageError } from '../errors.js'
import type { RawOptions } from '../options.js'

// The store side of `sysprompt record`: --prune --older-than, and the size cap past which recording stops.

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
}

/** `--max-size`: bytes, or a number with KiB, MiB, GiB (or KB, MB, GB). */
export function sizeOption(value: unknown): number {
  const found = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(String(value ?? '1GiB').trim())
  const unit = found === null ? undefined : UNITS[found[2]!.toLowerCase()]
  if (found === null || unit === undefined)
    throw new UsageError(`--max-size ${String(value)}: not a size`, 'give one like 500MiB or 2GiB')
  return Math.floor(Number(found[1]) * unit)
}

const DURATION_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** `--older-than`: a whole number and a unit, m, h, d or w. */
export function durationOption(value: unknown): number {
  const found = /^(\d+)([mhdw])$/.exec(String(value ?? '').trim())
  if (found === null)
    throw new UsageError(
      `--older-than ${String(value ?? '(missing)')}: not a duration`,
      'give one like 30d, 12h or 90m',
    )
  return Number(found[1]) * DURATION_MS[found[2]!]!
}

/** `record --prune --older-than D`: removes the calls started before now − D, and recordings left without a call. */
export async function prune(ctx: CommandContext, raw: RawOptions): Promise<void> {
  const age = durationOption(raw.olderThan)
  const store = openStore(typeof raw.store === 'string' ? raw.store : undefined, {
    cwd: ctx.io.cwd,
    env: ctx.io.env,
  })
  try {
    const result = await store.pruneCalls(new Date(Date.now() - age))
    ctx.io.stdout.write(
      `removed ${result.calls} recorded calls older than ${String(raw.olderThan)} and ${result.sessions} recordings left without one, from ${store.location}\n`,
    )
    ctx.exit(EXIT.ok)
  } finally {
    await store.close?.()
  }
}

/**
 * Whether the SQLite store has passed `maxBytes` (database and write-ahead
 * log), looked at no more than once a second; past the cap recording stops
 * with one warning while the traffic still flows. A PostgreSQL store has no
 * cap here (its server's own limits apply).
 */
export function sizeCapped(
  store: PersistentPromptStore,
  maxBytes: number,
  warn: (message: string) => void,
): () => Promise<boolean> {
  const path = store.location
  if (!isAbsolute(path)) return async () => false
  let checkedAt = 0
  let over = false
  return async () => {
    if (over || Date.now() - checkedAt < 1000) return over
    checkedAt = Date.now()
    const sizes = await Promise.all(
      [path, `${path}-wal`].map((p) =>
        stat(p).then(
          (s) => s.size,
          () => 0,
        ),
      ),
    )
    if (sizes[0]! + sizes[1]! > maxBytes) {
      over = true
      warn(
        `the store ${path} passed ${groupDigits(maxBytes)} bytes, so recording stopped (the agent's traffic still flows); prune it with sysprompt record --prune --older-than 30d, or raise --max-size`,
      )
    }
    return over
  }
}
