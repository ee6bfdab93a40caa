import { parse as parseJsonc } from 'jsonc-parser'
import { bracketDepthExceeded } from '../shared/nesting-depth.js'
import type { UpstreamOptions } from './relay/upstreams.js'

/**
 * How `sysprompt record` points a harness at its proxy without writing a
 * file of the user's (issue 33): an environment variable where the harness
 * reads one (Claude Code `ANTHROPIC_BASE_URL`, Gemini CLI
 * `GOOGLE_GEMINI_BASE_URL`), opencode's `OPENCODE_CONFIG_CONTENT`, Codex
 * `-c` provider flags right after its binary (`OPENAI_BASE_URL` does not
 * reach its WebSocket transport), and for pi, which reads providers only
 * from its agent directory's `models.json`, the one setting to add.
 * Recipes as `scripts/record-harness/harnesses.ts` runs them against the
 * published packages.
 */
export const RECORD_HARNESSES = ['claude', 'codex', 'gemini', 'opencode', 'pi'] as const
export type RecordHarness = (typeof RECORD_HARNESSES)[number]

/** Where the proxy forwards each provider's traffic: the base URL the harness would have used (the relay's defaults otherwise). */
export type Upstreams = UpstreamOptions

/** A harness run that cannot be recorded, in one line: why, and what works instead. */
export class RecordRefusal extends Error {
  override readonly name = 'RecordRefusal'
}

/** What to change to run a harness through the proxy. */
export interface Pointing {
  harness: RecordHarness
  /** Variables to set in the child's environment (added to what it inherits). */
  env: Record<string, string>
  /** The command line to run (Codex: its provider flags inserted after the binary). */
  command: string[]
  /** The base URLs the harness would have used, read before they are replaced. */
  upstreams: Upstreams
  /** Set when the harness cannot be pointed from outside (pi): the one setting the user adds; `record` then works as `--listen`. */
  manual?: string
}

const PACKAGES: Record<string, RecordHarness> = {
  '@anthropic-ai/claude-code': 'claude',
  '@openai/codex': 'codex',
  '@google/gemini-cli': 'gemini',
  'opencode-ai': 'opencode',
  '@earendil-works/pi-coding-agent': 'pi',
  '@mariozechner/pi-coding-agent': 'pi',
}

const RUNNERS = new Set(['npx', 'pnpx', 'bunx'])
const NODES = new Set(['node', 'bun', 'tsx'])

function base(word: string): string {
  return (word.split(/[\\/]/).pop() ?? word).replace(/\.(exe|cmd|js|mjs|cjs)$/i, '')
}

/** A package spec without its version (`@openai/codex@0.171.0` → `@openai/codex`). */
function packageName(spec: string): string {
  const at = spec.lastIndexOf('@')
  return at > 0 ? spec.slice(0, at) : spec
}

/**
 * The harness a command line runs, and the index of the word that names
 * it (Codex's flags go right after it): its binary (`claude`, `codex`,
 * `gemini`, `opencode`, `pi`), its package through `npx`/`pnpx`/`bunx`/
 * `pnpm dlx`/`npm exec`, or a script inside its package run by `node`.
 */
export function recogniseHarness(
  command: readonly string[],
): { harness: RecordHarness; at: number } | undefined {
  const first = command[0]
  if (first === undefined) return undefined
  const name = base(first)
  if ((RECORD_HARNESSES as readonly string[]).includes(name)) return { harness: name as RecordHarness, at: 0 }
  let from = -1
  if (RUNNERS.has(name)) from = 1
  else if ((name === 'pnpm' && command[1] === 'dlx') || (name === 'npm' && command[1] === 'exec')) from = 2
  if (from !== -1) {
    for (let i = from; i < command.length; i++) {
      const word = command[i]!
      if (word === '--') continue
      if (word.startsWith('-')) continue
      const harness = PACKAGES[packageName(word)]
      return harness === undefined ? undefined : { harness, at: i }
    }
    return undefined
  }
  if (NODES.has(name)) {
    const script = command.slice(1).findIndex((w) => !w.startsWith('-'))
    if (script === -1) return undefined
    const path = command[script + 1]!.replace(/\\/g, '/')
    for (const [pkg, harness] of Object.entries(PACKAGES))
      if (path.includes(`/${pkg}/`)) return { harness, at: script + 1 }
  }
  return undefined
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false'
}

type Env = Readonly<Record<string, string | undefined>>

/**
 * How to run `command` (recognised as `harness`, its name at `at`) with its
 * model traffic sent to `proxy` (`http://127.0.0.1:PORT`). Throws a
 * `RecordRefusal` for a sign-in whose traffic cannot go through a base URL.
 */
export function pointHarness(
  harness: RecordHarness,
  command: readonly string[],
  env: Env,
  proxy: string,
  at = 0,
): Pointing {
  switch (harness) {
    case 'claude':
      return claude(command, env, proxy)
    case 'gemini':
      return gemini(command, env, proxy)
    case 'codex':
      return codex(command, env, proxy, at)
    case 'opencode':
      return opencode(command, env, proxy)
    case 'pi':
      return {
        harness,
        env: {},
        command: [...command],
        upstreams: {},
        manual: `pi reads its providers from ~/.pi/agent/models.json only: add "baseUrl": "${proxy}/v1" to the provider you use there (remove it afterwards); sysprompt record keeps listening on ${proxy} until interrupted`,
      }
  }
}

function claude(command: readonly string[], env: Env, proxy: string): Pointing {
  if (truthy(env.CLAUDE_CODE_USE_BEDROCK) || truthy(env.CLAUDE_CODE_USE_VERTEX))
    throw new RecordRefusal(
      'Claude Code on Bedrock or Vertex signs each request for the cloud host, so it cannot go through a proxy; record works with an Anthropic API key or the Claude subscription sign-in',
    )
  return {
    harness: 'claude',
    env: { ANTHROPIC_BASE_URL: proxy },
    command: [...command],
    upstreams: env.ANTHROPIC_BASE_URL ? { anthropic: env.ANTHROPIC_BASE_URL } : {},
  }
}

function gemini(command: readonly string[], env: Env, proxy: string): Pointing {
  if (truthy(env.GOOGLE_GENAI_USE_VERTEXAI))
    throw new RecordRefusal(
      'Gemini CLI on Vertex AI signs each request for the Google Cloud host, so it cannot go through a proxy; record works with a Gemini API key (GEMINI_API_KEY)',
    )
  if (!env.GEMINI_API_KEY && !env.GOOGLE_API_KEY)
    throw new RecordRefusal(
      'Gemini CLI signed in with Google sends its traffic to Code Assist, which no base URL redirects; record works with a Gemini API key: set GEMINI_API_KEY',
    )
  return {
    harness: 'gemini',
    env: { GOOGLE_GEMINI_BASE_URL: proxy },
    command: [...command],
    upstreams: env.GOOGLE_GEMINI_BASE_URL ? { gemini: env.GOOGLE_GEMINI_BASE_URL } : {},
  }
}

/** The provider record adds to Codex (a name of its own, so no provider of the user's is replaced). */
export const CODEX_PROVIDER = 'sysprompt-record'

function codex(command: readonly string[], env: Env, proxy: string, at: number): Pointing {
  if (!env.OPENAI_API_KEY)
    throw new RecordRefusal(
      'Codex signed in with ChatGPT sends its traffic to ChatGPT, which no base URL redirects; record works with an API key: set OPENAI_API_KEY',
    )
  const flags = [
    `model_provider="${CODEX_PROVIDER}"`,
    `model_providers.${CODEX_PROVIDER}.name="OpenAI"`,
    `model_providers.${CODEX_PROVIDER}.base_url="${proxy}/v1"`,
    `model_providers.${CODEX_PROVIDER}.wire_api="responses"`,
    `model_providers.${CODEX_PROVIDER}.env_key="OPENAI_API_KEY"`,
  ].flatMap((setting) => ['-c', setting])
  return {
    harness: 'codex',
    env: {},
    command: [...command.slice(0, at + 1), ...flags, ...command.slice(at + 1)],
    upstreams: env.OPENAI_BASE_URL ? { openai: env.OPENAI_BASE_URL } : {},
  }
}

/** The providers opencode is pointed through, with the path its SDKs put after the base URL. */
const OPENCODE_PROVIDERS = [
  { id: 'anthropic', provider: 'anthropic', suffix: '/v1' },
  { id: 'openai', provider: 'openai', suffix: '/v1' },
  { id: 'google', provider: 'gemini', suffix: '/v1beta' },
] as const

function opencode(command: readonly string[], env: Env, proxy: string): Pointing {
  const given = env.OPENCODE_CONFIG_CONTENT
  let config: Record<string, unknown> = {}
  if (given !== undefined && given.trim() !== '') {
    const parsed = bracketDepthExceeded(given, 'json') !== -1 ? undefined : parseJsonc(given)
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new RecordRefusal(
        'OPENCODE_CONFIG_CONTENT is not a JSON object; fix or unset it, and record adds its providers to it',
      )
    config = parsed as Record<string, unknown>
  }
  const providers = { ...(asObject(config.provider) ?? {}) }
  const upstreams: Upstreams = {}
  for (const { id, provider, suffix } of OPENCODE_PROVIDERS) {
    const entry = asObject(providers[id]) ?? {}
    const options = asObject(entry.options) ?? {}
    if (typeof options.baseURL === 'string' && options.baseURL !== '')
      upstreams[provider] = options.baseURL.replace(new RegExp(`${suffix}/?$`), '')
    providers[id] = { ...entry, options: { ...options, baseURL: `${proxy}${suffix}` } }
  }
  return {
    harness: 'opencode',
    env: { OPENCODE_CONFIG_CONTENT: JSON.stringify({ ...config, provider: providers }) },
    command: [...command],
    upstreams,
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** The child's `NO_PROXY` with loopback added, so its traffic to the proxy never goes through an HTTP proxy. */
export function noProxyWithLoopback(env: Env): Record<string, string> {
  const current = env.NO_PROXY ?? env.no_proxy ?? ''
  const names = current
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)
  for (const host of ['127.0.0.1', 'localhost']) if (!names.includes(host)) names.push(host)
  const value = names.join(',')
  return { NO_PROXY: value, no_proxy: value }
}
