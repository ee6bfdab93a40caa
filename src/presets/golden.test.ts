import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { checkLock, createLock, formatLock } from '../compile/lock.js'
import { parseLock } from '../compile/lock-parse.js'
import { SCENARIOS } from './scenarios.test-helper.js'

// Golden lock files (SPEC §5) for every preset over representative inputs.
// `UPDATE_GOLDEN=1 npx vitest run src/presets` rewrites them; otherwise a
// mismatch fails with checkLock's explanation of what moved.
const GOLDEN_DIR = fileURLToPath(new URL('./__golden__/', import.meta.url))
const UPDATE = process.env.UPDATE_GOLDEN === '1'
const UPDATE_COMMAND = 'UPDATE_GOLDEN=1 npx vitest run src/presets'

describe('preset golden lock files', () => {
  for (const scenario of SCENARIOS) {
    it(scenario.name, async () => {
      const compiled = await scenario.compile()
      const text = formatLock({ version: 2, entries: { sysprompt: createLock(compiled) } })
      const file = join(GOLDEN_DIR, `${scenario.name}.lock`)
      if (UPDATE) {
        await writeFile(file, text)
        return
      }
      const stored = await readFile(file, 'utf8').catch(() => undefined)
      if (stored === undefined) {
        expect.fail(
          `src/presets/__golden__/${scenario.name}.lock is missing: run \`${UPDATE_COMMAND}\` and commit it`,
        )
      }
      if (stored === text) return
      const check = checkLock(compiled, parseLock(stored).entries.sysprompt!)
      // checkLock's advice names the CLI; here the update command is the test's own.
      const explained = check.differences
        .map((d) => `  - ${d.message.replace(/ If the change is intended, run `[^`]*`\.$/, '')}`)
        .join('\n')
      expect.fail(
        `preset "${scenario.name}" no longer matches src/presets/__golden__/${scenario.name}.lock:\n` +
          `${explained || '  - the lock file text differs (formatting or a field checkLock does not compare)'}\n` +
          `If the change to the preset words is intended, run \`${UPDATE_COMMAND}\` and commit the .lock files.`,
      )
    })
  }

  it('keeps no lock file without a scenario', async () => {
    const names = new Set(SCENARIOS.map((s) => `${s.name}.lock`))
    const orphans = (await readdir(GOLDEN_DIR)).filter((f) => f.endsWith('.lock') && !names.has(f))
    expect(orphans, 'delete golden files whose scenario is gone').toEqual([])
  })

  it('gives every scenario a distinct prompt', async () => {
    const hashes = await Promise.all(SCENARIOS.map(async (s) => (await s.compile()).hash))
    expect(new Set(hashes).size).toBe(SCENARIOS.length)
  })
})
