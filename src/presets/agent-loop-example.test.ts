import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../', import.meta.url))

describe('examples/agent-loop', () => {
  it('runs with one command, keeps the prompt hash and sends only changed environment values', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/agent-loop/main.ts'], {
      cwd: ROOT,
    })
    expect(stdout.match(/^turn \d: system prompt sha256:[0-9a-f]{16}… \(unchanged\)$/gm)).toHaveLength(3)
    expect(stdout.match(/^<environment>$/gm)).toHaveLength(3)
    expect(stdout.match(/^cwd: /gm)).toHaveLength(1)
    expect(stdout.match(/^date: 2026-03-0[234]$/gm)).toHaveLength(3)
    expect(stdout).toContain('stayed byte-identical')
  })
})
