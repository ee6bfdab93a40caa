import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  CODEX_PROVIDER,
  noProxyWithLoopback,
  pointHarness,
  RecordRefusal,
  recogniseHarness,
} from './pointing.js'

const PROXY = 'http://127.0.0.1:40123'

describe('recogniseHarness', () => {
  it.each([
    [['claude', '-p', 'hi'], 'claude', 0],
    [['/usr/local/bin/codex', 'exec', 'hi'], 'codex', 0],
    [['gemini.cmd'], 'gemini', 0],
    [['opencode', 'run'], 'opencode', 0],
    [['pi'], 'pi', 0],
    [['npx', '-y', '@openai/codex@0.171.0', 'exec'], 'codex', 2],
    [['npx', '@anthropic-ai/claude-code'], 'claude', 1],
    [['pnpm', 'dlx', '@google/gemini-cli'], 'gemini', 2],
    [['npm', 'exec', '--', 'opencode-ai'], 'opencode', 3],
    [['node', '/opt/lib/node_modules/@earendil-works/pi-coding-agent/dist/cli.js', '-p'], 'pi', 1],
    [['node', '--no-warnings', 'C:\\n\\@anthropic-ai\\claude-code\\cli.js'], 'claude', 2],
  ] as const)('%j is %s, named at %i', (command, harness, at) => {
    expect(recogniseHarness(command)).toEqual({ harness, at })
  })

  it.each([[[]], [['python', 'x.py']], [['npx', 'cowsay']], [['node', 'server.js']], [['claude-like']]])(
    '%j is none',
    (command) => {
      expect(recogniseHarness(command)).toBeUndefined()
    },
  )

  it('never throws on any command line', () => {
    fc.assert(fc.property(fc.array(fc.string()), (command) => void recogniseHarness(command) === undefined))
  })
})

describe('pointHarness', () => {
  it('Claude Code: ANTHROPIC_BASE_URL, the upstream the user had kept (a gateway stays in the path)', () => {
    const p = pointHarness(
      'claude',
      ['claude'],
      { ANTHROPIC_BASE_URL: 'https://gw.example/anthropic' },
      PROXY,
    )
    expect(p.env).toEqual({ ANTHROPIC_BASE_URL: PROXY })
    expect(p.upstreams).toEqual({ anthropic: 'https://gw.example/anthropic' })
    expect(pointHarness('claude', ['claude'], {}, PROXY).upstreams).toEqual({})
  })

  it('Claude Code on Bedrock or Vertex is refused in one line saying what works', () => {
    for (const key of ['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX']) {
      expect(() => pointHarness('claude', ['claude'], { [key]: '1' }, PROXY)).toThrow(RecordRefusal)
      expect(() => pointHarness('claude', ['claude'], { [key]: '1' }, PROXY)).toThrow(/API key/)
    }
    expect(() => pointHarness('claude', ['claude'], { CLAUDE_CODE_USE_BEDROCK: '0' }, PROXY)).not.toThrow()
  })

  it('Gemini CLI: GOOGLE_GEMINI_BASE_URL with an API key; signed in with Google or on Vertex is refused', () => {
    const p = pointHarness('gemini', ['gemini'], { GEMINI_API_KEY: 'k' }, PROXY)
    expect(p.env).toEqual({ GOOGLE_GEMINI_BASE_URL: PROXY })
    expect(() => pointHarness('gemini', ['gemini'], {}, PROXY)).toThrow(/GEMINI_API_KEY/)
    expect(() =>
      pointHarness('gemini', ['gemini'], { GEMINI_API_KEY: 'k', GOOGLE_GENAI_USE_VERTEXAI: 'true' }, PROXY),
    ).toThrow(/Vertex/)
  })

  it('Codex: provider flags right after the binary, nothing else moved; no API key is refused', () => {
    const p = pointHarness('codex', ['npx', '@openai/codex', 'exec', 'hi'], { OPENAI_API_KEY: 'k' }, PROXY, 1)
    expect(p.command.slice(0, 2)).toEqual(['npx', '@openai/codex'])
    expect(p.command.slice(-2)).toEqual(['exec', 'hi'])
    expect(p.command).toContain(`model_provider="${CODEX_PROVIDER}"`)
    expect(p.command).toContain(`model_providers.${CODEX_PROVIDER}.base_url="${PROXY}/v1"`)
    expect(p.command.filter((w) => w === '-c')).toHaveLength(5)
    expect(p.env).toEqual({})
    expect(() => pointHarness('codex', ['codex'], {}, PROXY)).toThrow(/ChatGPT/)
  })

  it('opencode: its providers added to OPENCODE_CONFIG_CONTENT, the user content and upstreams kept', () => {
    const given = JSON.stringify({
      model: 'anthropic/claude-sonnet-4-5',
      provider: { anthropic: { options: { baseURL: 'https://gw.example/v1', timeout: 5 } } },
    })
    const p = pointHarness('opencode', ['opencode'], { OPENCODE_CONFIG_CONTENT: given }, PROXY)
    const config = JSON.parse(p.env.OPENCODE_CONFIG_CONTENT!)
    expect(config.model).toBe('anthropic/claude-sonnet-4-5')
    expect(config.provider.anthropic.options).toEqual({ baseURL: `${PROXY}/v1`, timeout: 5 })
    expect(config.provider.openai.options.baseURL).toBe(`${PROXY}/v1`)
    expect(config.provider.google.options.baseURL).toBe(`${PROXY}/v1beta`)
    expect(p.upstreams).toEqual({ anthropic: 'https://gw.example' })
    expect(() => pointHarness('opencode', ['opencode'], { OPENCODE_CONFIG_CONTENT: '[1]' }, PROXY)).toThrow(
      RecordRefusal,
    )
    expect(() =>
      pointHarness('opencode', ['opencode'], { OPENCODE_CONFIG_CONTENT: '['.repeat(100_000) }, PROXY),
    ).toThrow(RecordRefusal)
  })

  it('pi: nothing to set from outside; the one setting to add, naming the proxy', () => {
    const p = pointHarness('pi', ['pi'], {}, PROXY)
    expect(p.env).toEqual({})
    expect(p.manual).toContain(`"baseUrl": "${PROXY}/v1"`)
    expect(p.manual).toContain('models.json')
  })

  it('NO_PROXY gains loopback once, keeping what was there', () => {
    expect(noProxyWithLoopback({ NO_PROXY: 'corp.example, localhost' })).toEqual({
      NO_PROXY: 'corp.example,localhost,127.0.0.1',
      no_proxy: 'corp.example,localhost,127.0.0.1',
    })
    expect(noProxyWithLoopback({}).NO_PROXY).toBe('127.0.0.1,localhost')
  })
})
