import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { HarnessPlacement } from '../../src/node/instructions/index.js'

/** What a harness needs to run once against the mock server. */
export interface RunSetup {
  home: string
  cwd: string
  mockUrl: string
}

/** How to install, run and read one published harness. */
export interface HarnessRecorder {
  /** The sysprompt mode it is compared with. */
  mode: 'pi' | 'gemini'
  /** The npm package and the version recorded. */
  pkg: string
  version: string
  /** The script to run with node, inside the installed package. */
  bin: string
  /** Writes the harness's config into the temporary home and returns its arguments and environment. */
  prepare(setup: RunSetup): Promise<{ args: string[]; env: Record<string, string> }>
  /** The path of the model request that carries the prompt. */
  request: RegExp
  /** The instruction parts in the captured request body, by placement (only those present). */
  extract(body: unknown): Partial<Record<HarnessPlacement, string>>
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
  bin: 'dist/cli.js',
  async prepare({ home, mockUrl }) {
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
    return {
      args: ['-p', 'hello', '--provider', 'mock', '--model', 'mock-model', '--no-session', '--no-extensions'],
      env: {},
    }
  },
  request: /\/chat\/completions/,
  extract(body) {
    const messages = (body as { messages?: { role: string; content: unknown }[] }).messages ?? []
    const system = messages.find((m) => m.role === 'system' || m.role === 'developer')
    const text = typeof system?.content === 'string' ? system.content : ''
    // pi appends its context files under "# Project Context", before its skills and the date line.
    const at = text.indexOf('# Project Context\n\n')
    if (at === -1) return {}
    const end = text.indexOf('\nCurrent date:', at)
    return { 'system-prompt': text.slice(at, end === -1 ? undefined : end) }
  },
}

const gemini: HarnessRecorder = {
  mode: 'gemini',
  pkg: '@google/gemini-cli',
  version: '0.61.0',
  bin: 'bundle/gemini.js',
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
  request: /:(stream)?[gG]enerateContent/,
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

/** Every harness the script can record. */
export const RECORDERS: readonly HarnessRecorder[] = [pi, gemini]
