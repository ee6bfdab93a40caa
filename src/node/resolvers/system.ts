import type { VariableInfo, VariableResolver } from '../../registry/types.js'
import type { ClockAdapter, OsAdapter } from '../adapters.js'

/** A configuration mistake in `nodeResolvers` options, found when the resolvers are built. */
export class ResolverOptionError extends Error {
  readonly code = 'invalid-option'
  override name = 'ResolverOptionError'
}

export interface SystemResolverOptions {
  clock: ClockAdapter
  os: OsAdapter
  /** An IANA time zone such as `Europe/Paris`; defaults to the process's. */
  timeZone?: string
}

const CATALOG: VariableInfo[] = [
  { key: 'system:date', description: 'Today’s date (YYYY-MM-DD)', example: '2025-01-31', stability: 'turn' },
  {
    key: 'system:time',
    description: 'The time of day (HH:MM, 24-hour)',
    example: '14:05',
    stability: 'turn',
  },
  {
    key: 'system:os',
    description: 'Operating system: platform and release',
    example: 'linux 6.1.0',
    stability: 'static',
  },
  {
    key: 'system:hostname',
    description: 'Host name of the machine',
    example: 'build-01',
    stability: 'static',
  },
]

/**
 * The `system` namespace (SPEC §3): date and time in a time zone, platform
 * and host name. Date and time are read from the injected clock and formatted
 * from `formatToParts` with explicit numeric fields in a fixed locale, so the
 * bytes never depend on the machine's locale; only the time zone (chosen, or
 * the process's) decides the values. An unknown `timeZone` throws
 * `ResolverOptionError` when the resolver is built, not at every turn. The
 * formatter (whose time-zone data is slow to load) is made only when a date
 * or time is asked for, or at once to check a `timeZone` that was given.
 */
export function systemResolver(options: SystemResolverOptions): VariableResolver {
  let formatter = options.timeZone === undefined ? undefined : dateTimeFormat(options.timeZone)
  const format = (): Intl.DateTimeFormat => {
    formatter ??= dateTimeFormat(options.timeZone)
    return formatter
  }
  return {
    namespace: 'system',
    describe: () => CATALOG.map((info) => ({ ...info })),
    async resolve(keys) {
      const out = new Map<string, string | null>()
      let parts: Record<string, string> | undefined
      const now = (): Record<string, string> => {
        parts ??= Object.fromEntries(
          format()
            .formatToParts(options.clock.now())
            .map((p) => [p.type, p.value]),
        )
        return parts
      }
      for (const key of keys) {
        if (key === 'system:date') out.set(key, `${now().year}-${now().month}-${now().day}`)
        else if (key === 'system:time') out.set(key, `${now().hour}:${now().minute}`)
        else if (key === 'system:os') out.set(key, `${options.os.platform()} ${options.os.release()}`)
        else if (key === 'system:hostname') out.set(key, options.os.hostname())
        else out.set(key, null)
      }
      return out
    },
  }
}

function dateTimeFormat(timeZone: string | undefined): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat('en-US', {
      timeZone,
      numberingSystem: 'latn',
      calendar: 'gregory',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      // h23, not hour12: false, which some engines render as `24:05` after midnight.
      hourCycle: 'h23',
    })
  } catch (cause) {
    throw new ResolverOptionError(
      `nodeResolvers: timeZone ${JSON.stringify(timeZone)} is not a time zone this runtime knows; ` +
        'pass an IANA name such as "UTC" or "Europe/Paris", or omit it to use the process time zone.',
      { cause },
    )
  }
}
