import { describe, expect, it } from 'vitest'
import { formatReport, runLoad } from './server-load.js'

// A bounded load run in every test run: exactly N completed responses and
// no error response, never a time. The full run of the report (10 000 of
// each) is `npx tsx test/load/server-load.ts`.
const PREVIEWS = Number(process.env.SYSPROMPT_LOAD_PREVIEWS ?? 1000)
const GETS = Number(process.env.SYSPROMPT_LOAD_GETS ?? 1000)

describe('load on loopback', () => {
  it(`${PREVIEWS} previews and ${GETS} session gets at 32 concurrent: all 2xx`, {
    timeout: 600_000,
  }, async () => {
    const report = await runLoad(PREVIEWS, GETS, 32)
    console.log(formatReport(report))
    const total = (name: string) =>
      report.phases.filter((p) => p.name.startsWith(name)).reduce((sum, p) => sum + p.ok, 0)
    expect(total('preview')).toBe(PREVIEWS)
    expect(total('session get')).toBe(GETS)
    for (const p of report.phases) {
      expect(p.non2xx, p.name).toBe(0)
      expect(p.errors, p.name).toBe(0)
      expect(p.timeouts, p.name).toBe(0)
    }
  })
})
