import { groupDigits } from '../../compile/numbers.js'
import type { UsageProvider } from '../../compile/types.js'
import { CODEX_PROVIDER } from '../../record/pointing.js'
import type { RecordSummary } from '../../record/recorder.js'
import { UsageError } from '../errors.js'

// What `sysprompt record` reads from its options and writes for the user: upstreams, the summary, --listen's help.

const PROVIDERS: readonly UsageProvider[] = ['anthropic', 'openai', 'gemini']

/** `--upstream URL` (every provider) and `--upstream PROVIDER=URL` (one), later ones winning. */
export function upstreamOptions(values: readonly string[]): Partial<Record<UsageProvider, string>> {
  const out: Partial<Record<UsageProvider, string>> = {}
  for (const value of values) {
    const named = /^([a-z]+)=(.+)$/.exec(value)
    if (named === null) for (const p of PROVIDERS) out[p] = value
    else if ((PROVIDERS as readonly string[]).includes(named[1]!)) out[named[1] as UsageProvider] = named[2]!
    else
      throw new UsageError(
        `--upstream ${value}: unknown provider ${named[1]}`,
        'name anthropic, openai or gemini, or give a URL alone',
      )
  }
  return out
}

/** The summary at exit, on stderr: requests, tokens read from cache, written, uncached, the hit ratio, each colder call. */
export function summaryText(summary: RecordSummary, dropped: number): string {
  const input = summary.cacheRead + summary.cacheWrite + summary.uncached
  const ratio = input === 0 ? '' : `; ${Math.round((100 * summary.cacheRead) / input)} % read from cache`
  const lines = [
    `sysprompt record: ${summary.requests} requests (${summary.recorded} recorded), tokens read from cache ${groupDigits(summary.cacheRead)}, written ${groupDigits(summary.cacheWrite)}, uncached ${groupDigits(summary.uncached)}${ratio}`,
  ]
  for (const c of summary.colder)
    lines.push(
      `  colder: ${c.session} call ${c.call} read ${groupDigits(c.read)} of ${groupDigits(c.reusable)} reusable tokens (${groupDigits(c.lost)} at full price)`,
    )
  if (dropped > 0) lines.push(`  ${dropped} requests went through unrecorded: the record queue was full`)
  if (summary.sessions.length > 0) lines.push(`  sessions: ${summary.sessions.join(', ')}`)
  return `${lines.join('\n')}\n`
}

/** What to set, per harness, to send its traffic through a proxy listening on `url` (`--listen`). */
export function listenHelp(url: string): string {
  const P = CODEX_PROVIDER
  return [
    `listening on ${url}`,
    `  Claude Code:  ANTHROPIC_BASE_URL=${url}`,
    `  Gemini CLI:   GOOGLE_GEMINI_BASE_URL=${url}  (with GEMINI_API_KEY)`,
    `  Codex:        codex -c 'model_provider="${P}"' -c 'model_providers.${P}.base_url="${url}/v1"' -c 'model_providers.${P}.wire_api="responses"' -c 'model_providers.${P}.env_key="OPENAI_API_KEY"'`,
    `  opencode:     OPENCODE_CONFIG_CONTENT='{"provider":{"anthropic":{"options":{"baseURL":"${url}/v1"}}}}'`,
    `  pi:           "baseUrl": "${url}/v1" in the provider of ~/.pi/agent/models.json`,
    '',
  ].join('\n')
}
