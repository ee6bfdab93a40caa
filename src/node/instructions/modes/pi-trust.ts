import type { DiscoveryContext } from '../context.js'

/** Whether pi 1.x trusts the project, and why, in words that follow "pi trusts this project: " or "does not trust". */
export interface Trust {
  trusted: boolean
  why: string
  /** No decision was found: pi would ask in a terminal, and does not trust the project where it cannot ask (`pi -p`). */
  asked: boolean
}

/**
 * pi 1.x's project trust (`core/project-trust`, `core/trust-manager` of
 * 1.6.0), which gates the project's `.pi/SYSTEM.md` and
 * `.pi/APPEND_SYSTEM.md` (context files load regardless). It is asked
 * only of a project whose `.pi/` holds what needs trust, which those two
 * files do, so it matters only when one of them exists. In pi's order:
 * `--approve`/`--no-approve` (here `--harness-config trust=yes|no`), the
 * nearest saved decision in `~/.pi/agent/trust.json` (both are the
 * `trust` setting, the flag over the file), then `defaultProjectTrust` in
 * `~/.pi/agent/settings.json` (`always`, `never`; the default `ask` is
 * untrusted where pi cannot ask, as in a non-interactive run).
 */
export async function projectTrust(context: DiscoveryContext): Promise<Trust> {
  const decided = context.setting('trust')
  if (decided !== undefined)
    return {
      trusted: decided.value === 'yes',
      why: `trust=${String(decided.value)} by ${decided.source}`,
      asked: false,
    }
  const fallback = context.setting('defaultProjectTrust')
  if (fallback?.value === 'always' || fallback?.value === 'never')
    return {
      trusted: fallback.value === 'always',
      why: `no saved decision for it, and defaultProjectTrust is "${fallback.value}" (${fallback.source})`,
      asked: false,
    }
  return {
    trusted: false,
    why: 'no decision is saved for it in ~/.pi/agent/trust.json, so pi asks in a terminal and, where it cannot ask (pi -p, a script), does not trust it; --harness-config trust=yes shows the trusted view (pi --approve)',
    asked: true,
  }
}
