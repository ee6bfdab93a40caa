import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { HarnessPlacement } from '../../src/node/instructions/index.js'
import { compareVersions } from '../../src/node/instructions/modes/profiles.js'
import type { HarnessTree } from '../../test/fixtures/harness/trees.js'

/** What a harness needs to run once against the mock server. */
export interface RunSetup {
  home: string
  cwd: string
  mockUrl: string
  /** The tree's `harnessConfig` for this mode (`trust=yes`), which the harness gets as its own flags. */
  harnessConfig: readonly string[]
  /** Use the harness's WebSocket transport to the model (only where `HarnessRecorder.websocket` says it has one). */
  websocket?: boolean
  /** Run through `sysprompt record -- …`, which points the harness itself (Codex: its own provider, so none here). */
  viaRecord?: boolean
}

/** How to install, run and read one published harness. */
export interface HarnessRecorder {
  /** The sysprompt mode it is compared with. */
  mode: 'pi' | 'gemini' | 'claude' | 'codex' | 'opencode'
  /** The npm package and the version recorded. */
  pkg: string
  version: string
  /** What to run, inside the installed `node_modules`: a script for node, or a native executable (`native`). */
  bin: string
  native?: boolean
  /** Whether it can reach the model over a WebSocket as well (Codex's Responses transport), which the mock speaks. */
  websocket?: boolean
  /** Writes the harness's config into the temporary home and returns its arguments and environment. */
  prepare(setup: RunSetup): Promise<{ args: string[]; env: Record<string, string> }>
  /** Whether a captured request is the model request that carries the prompt (the first that is counts). */
  request: (path: string, body: unknown) => boolean
  /** The instruction parts in the captured request body, by placement (only those present); `tree` is the tree it ran on. */
  extract(body: unknown, tree: HarnessTree): Partial<Record<HarnessPlacement, string>>
}

/** `text` from `start` (included) to the end of `end` (included); `undefined` when either is missing. */
function span(text: string, start: string, end: string, from = 0): string | undefined {
  const at = text.indexOf(start, from)
  if (at === -1) return undefined
  const stop = text.indexOf(end, at + start.length)
  return stop === -1 ? undefined : text.slice(at, stop + end.length)
}

const pi: HarnessRecorder = {
  mode: 'pi',
  pkg: '@mariozechner/pi-coding-agent',
  version: '0.73.1',
  bin: '@mariozechner/pi-coding-agent/dist/cli.js',
  async prepare({ home, mockUrl }) {
    await piModels(home, mockUrl)
    return {
      args: ['-p', 'hello', '--provider', 'mock', '--model', 'mock-model', '--no-session', '--no-extensions'],
      env: {},
    }
  },
  request: (path) => path.includes('/chat/completions'),
  extract(body, tree) {
    const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? []
    const system = messages.find((m) => m.role === 'system' || m.role === 'developer')
    const text = typeof system?.content === 'string' ? system.content : ''
    // pi appends its context files under "# Project Context", before its skills and the date line;
    // a SYSTEM.md of the tree stands in for its base prompt, so the part starts at the top.
    const own = Object.keys(tree.files).some((path) => path.endsWith('.pi/SYSTEM.md'))
    const at = own ? 0 : text.indexOf('# Project Context\n\n')
    if (at === -1) return {}
    const end = text.indexOf('\nCurrent date:', at)
    return { 'system-prompt': text.slice(at, end === -1 ? undefined : end) }
  },
}

/** pi's models file: one OpenAI-compatible provider at the mock (the same for 0.73.1 and 1.x). */
async function piModels(home: string, mockUrl: string): Promise<void> {
  const dir = join(home, '.pi', 'agent')
  await mkdir(dir, { recursive: true })
  const models = {
    providers: {
      mock: {
        baseUrl: `${mockUrl}/v1`,
        api: 'openai-completions',
        apiKey: 'mock',
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: 'mock-model' }],
      },
    },
  }
  await writeFile(join(dir, 'models.json'), JSON.stringify(models, null, 2))
}

/** The start of pi 1.x's own preamble (when no SYSTEM.md stands in for it). */
const PI1_PREAMBLE = 'You are a coding assistant running inside pi, '

/**
 * pi 1.x, from the package `@earendil-works/pi-coding-agent` (Node 22.19 or
 * later): its prompt is sections joined by a blank line. The part starts
 * after its own preamble, tools, rules and docs (what the view marks), or
 * at the top when a SYSTEM.md stands in for them, and runs to the end
 * (`<cwd>` is last); no part when nothing of the project or the user's
 * files follows (only `<cwd>`). `trust=yes|no` in the tree's harnessConfig
 * becomes `--approve` / `--no-approve`.
 */
const pi1: HarnessRecorder = {
  mode: 'pi',
  pkg: '@earendil-works/pi-coding-agent',
  version: '1.6.0',
  bin: '@earendil-works/pi-coding-agent/dist/bundle/cli.js',
  async prepare({ home, mockUrl, harnessConfig }) {
    await piModels(home, mockUrl)
    const trust = harnessConfig.includes('trust=yes')
      ? ['--approve']
      : harnessConfig.includes('trust=no')
        ? ['--no-approve']
        : []
    return {
      args: [
        '-p',
        'hello',
        '--provider',
        'mock',
        '--model',
        'mock-model',
        '--no-session',
        '--no-extensions',
        ...trust,
      ],
      env: { PI_OFFLINE: '1' },
    }
  },
  request: (path) => path.includes('/chat/completions'),
  extract(body) {
    const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? []
    const system = messages.find((m) => m.role === 'system' || m.role === 'developer')
    const text = typeof system?.content === 'string' ? system.content : ''
    if (!text.startsWith(PI1_PREAMBLE)) return text.length === 0 ? {} : { 'system-prompt': text }
    const docs = text.indexOf('\n</docs>')
    if (docs === -1) return {}
    const rest = text.slice(docs + '\n</docs>'.length)
    return rest.startsWith('\n\n<cwd>\n') ? {} : { 'system-prompt': rest }
  },
}

const gemini: HarnessRecorder = {
  mode: 'gemini',
  pkg: '@google/gemini-cli',
  version: '0.61.0',
  bin: '@google/gemini-cli/bundle/gemini.js',
  async prepare({ home, mockUrl }) {
    // Trust every folder and keep the CLI off the network: no telemetry, no update check.
    const dir = join(home, '.gemini')
    await mkdir(dir, { recursive: true })
    const settings = {
      security: { folderTrust: { enabled: false }, auth: { selectedType: 'gemini-api-key' } },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
    }
    await writeFile(join(dir, 'settings.json'), JSON.stringify(settings, null, 2))
    return {
      args: ['-p', 'hello', '--model', 'gemini-2.5-flash'],
      env: { GEMINI_API_KEY: 'mock', GOOGLE_GEMINI_BASE_URL: mockUrl },
    }
  },
  request: (path) => /:(stream)?[gG]enerateContent/.test(path),
  extract(body) {
    const b = body as {
      systemInstruction?: { parts?: { text?: string }[] }
      contents?: { role?: string; parts?: { text?: string }[] }[]
    }
    const out: Partial<Record<HarnessPlacement, string>> = {}
    const system = (b.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join('')
    // After the prose under its heading: the global files inside <loaded_context>.
    const heading = system.indexOf('# Contextual Instructions (')
    const global =
      heading === -1 ? undefined : span(system, '\n\n<loaded_context>\n', '\n</loaded_context>', heading)
    if (global !== undefined) out['system-prompt'] = global
    const first = (b.contents?.[0]?.parts ?? []).map((p) => p.text ?? '').join('')
    const project = span(first, '<loaded_context>\n<project_context>\n', '\n</loaded_context>')
    if (project !== undefined) out['first-user-message'] = project
    return out
  },
}

/** The text of a message's content: a string, or the text blocks of a block list, joined. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((b: { text?: unknown }) => (typeof b.text === 'string' ? b.text : '')).join('\n')
}

const claude: HarnessRecorder = {
  mode: 'claude',
  pkg: '@anthropic-ai/claude-code',
  version: '2.1.332',
  bin: '@anthropic-ai/claude-code-linux-x64/claude',
  native: true,
  async prepare({ home, mockUrl }) {
    await mkdir(join(home, '.claude'), { recursive: true })
    return {
      args: ['-p', 'hello', '--model', 'claude-sonnet-4-5'],
      env: {
        ANTHROPIC_BASE_URL: mockUrl,
        ANTHROPIC_API_KEY: 'mock',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
    }
  },
  // The turn itself: the request whose first user message carries the files (not a title or quota probe).
  request: (path, body) => path.includes('/messages') && JSON.stringify(body).includes('Contents of '),
  extract(body) {
    const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? []
    const first = contentText(messages.find((m) => m.role === 'user')?.content)
    // After its preamble: the files, through the end of the reminder that holds them.
    const files = span(first, '\n\nContents of ', '</system-reminder>')
    return files === undefined ? {} : { 'first-user-message': files }
  },
}

const codex: HarnessRecorder = {
  mode: 'codex',
  pkg: '@openai/codex',
  version: '0.171.0',
  bin: '@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex',
  native: true,
  websocket: true,
  async prepare({ mockUrl, websocket, viaRecord }): Promise<{ args: string[]; env: Record<string, string> }> {
    // Through `sysprompt record`, record adds its own provider (at its proxy, keyed by OPENAI_API_KEY).
    if (viaRecord === true)
      return {
        args: ['exec', '--skip-git-repo-check', '-m', 'gpt-5', 'hello'],
        env: { OPENAI_API_KEY: 'mock' },
      }
    // A provider of its own pointing at the mock, given on the command line (no config.toml is written).
    // A custom provider speaks HTTP unless it says it supports WebSockets (then HTTP only as a fallback).
    const provider = [
      'model_provider="mock"',
      'model_providers.mock.name="mock"',
      `model_providers.mock.base_url="${mockUrl}/v1"`,
      'model_providers.mock.wire_api="responses"',
      'model_providers.mock.env_key="MOCK_KEY"',
      ...(websocket === true ? ['model_providers.mock.supports_websockets=true'] : []),
    ].flatMap((setting) => ['-c', setting])
    return {
      args: ['exec', '--skip-git-repo-check', ...provider, '-m', 'gpt-5', 'hello'],
      env: { MOCK_KEY: 'mock' },
    }
  },
  request: (path) => path.includes('/responses'),
  extract(body) {
    const input = (body as { input?: { role?: string; content?: unknown }[] }).input ?? []
    // A content item of its own in the user-role message before the prompt (the environment context is the next item).
    for (const item of input) {
      if (item.role !== 'user' || !Array.isArray(item.content)) continue
      for (const c of item.content as { text?: unknown }[]) {
        if (typeof c.text === 'string' && c.text.startsWith('# AGENTS.md instructions for '))
          return { 'separate-message': c.text }
      }
    }
    return {}
  },
}

const opencode: HarnessRecorder = {
  mode: 'opencode',
  pkg: 'opencode-ai',
  version: '1.18.33',
  bin: 'opencode-linux-x64/bin/opencode',
  native: true,
  async prepare({ home, mockUrl }) {
    // The user's config (not the project's): an OpenAI-compatible provider at the mock.
    const dir = join(home, '.config', 'opencode')
    await mkdir(dir, { recursive: true })
    const config = {
      autoupdate: false,
      share: 'disabled',
      provider: {
        mock: {
          npm: '@ai-sdk/openai-compatible',
          name: 'mock',
          options: { baseURL: `${mockUrl}/v1`, apiKey: 'mock' },
          models: { 'mock-model': { name: 'mock' } },
        },
      },
      model: 'mock/mock-model',
    }
    await writeFile(join(dir, 'opencode.json'), JSON.stringify(config, null, 2))
    return { args: ['run', '-m', 'mock/mock-model', 'hello'], env: { OPENCODE_DISABLE_AUTOUPDATE: '1' } }
  },
  // The turn itself, not the title request sent beside it.
  request: (path, body) =>
    path.includes('/chat/completions') && !JSON.stringify(body).includes('title generator'),
  extract(body) {
    const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? []
    const system = messages
      .filter((m) => m.role === 'system')
      .map((m) => contentText(m.content))
      .join('\n')
    const at = system.indexOf('Instructions from: ')
    if (at === -1) return {}
    // Its files run up to the line break before the next system section (its skills list).
    const end = system.indexOf('\nSkills provide specialized instructions', at)
    return { 'system-prompt': system.slice(at, end === -1 ? undefined : end) }
  },
}

/** Every harness the script can record. */
export const RECORDERS: readonly HarnessRecorder[] = [pi, pi1, gemini, claude, codex, opencode]

/** The recorder of each mode's newest modelled version (a mode may keep older ones beside it). */
export function newestRecorders(only: readonly string[] | undefined): HarnessRecorder[] {
  const byMode = new Map<string, HarnessRecorder>()
  for (const r of RECORDERS) {
    const seen = byMode.get(r.mode)
    if (seen === undefined || compareVersions(r.version, seen.version) > 0) byMode.set(r.mode, r)
  }
  return [...byMode.values()].filter((r) => only === undefined || only.includes(r.mode))
}
