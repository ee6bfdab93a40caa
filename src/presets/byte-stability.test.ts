import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { SCENARIOS } from './scenarios.test-helper.js'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SCRIPT = fileURLToPath(new URL('./print-hashes.test-helper.ts', import.meta.url))

// Machines differ in time zone and locale; a preset that formatted a number,
// a date or a sort with either would give other bytes elsewhere and miss the
// provider's prompt cache. Each setting runs in a fresh process, because both
// are read once at start-up.
const SETTINGS = [
  { TZ: 'UTC', LANG: 'C', LC_ALL: 'C' },
  { TZ: 'Asia/Kathmandu', LANG: 'de_DE.UTF-8', LC_ALL: 'de_DE.UTF-8' },
  { TZ: 'America/St_Johns', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' },
  { TZ: 'Pacific/Kiritimati', LANG: 'ja_JP.UTF-8', LC_ALL: 'ja_JP.UTF-8' },
]

async function hashesUnder(env: Record<string, string>): Promise<Record<string, string>> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', SCRIPT], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    maxBuffer: 1 << 20,
  })
  return JSON.parse(stdout) as Record<string, string>
}

describe('preset bytes across time zones and locales', () => {
  it('are identical in every setting and equal to this process', async () => {
    const here: Record<string, string> = {}
    for (const scenario of SCENARIOS) here[scenario.name] = (await scenario.compile()).hash
    const results = await Promise.all(SETTINGS.map(hashesUnder))
    for (const [i, hashes] of results.entries()) {
      expect(hashes, `TZ=${SETTINGS[i]!.TZ} LANG=${SETTINGS[i]!.LANG}`).toEqual(here)
    }
  })
})
