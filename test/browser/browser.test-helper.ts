/**
 * Browser test helpers: Debian's chromium driven by playwright-core (never a
 * downloaded browser), one persistent context per suite with a fresh
 * profile, axe-core checks and screenshots under `test-results/page/`.
 */
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM = process.env.SYSPROMPT_CHROMIUM ?? '/usr/bin/chromium'

/** Screenshots of each state; gitignored, kept by CI as test output. */
export const SHOT_DIR = join(process.cwd(), 'test-results', 'page')

/**
 * Why the browser suite cannot run here, or `undefined` when it can. Under
 * `CI=true` a missing browser is a failure, never a skip.
 */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined
  const why = `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`
  if (process.env.CI === 'true') throw new Error(`browser tests cannot run in CI: ${why}`)
  return why
}

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** A running browser with a fresh profile; `close` removes the profile. */
export interface TestBrowser {
  context: BrowserContext
  close(): Promise<void>
}

/** Launches chromium once for a suite (one context, its pages reused). */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(join(tmpdir(), 'sysprompt-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 800 },
    timeout: 60_000,
  })
  context.setDefaultTimeout(20_000)
  return {
    context,
    close: async () => {
      await context.close()
      await rm(profile, { recursive: true, force: true })
    },
  }
}

let axeSource: Promise<string> | undefined

/** One axe-core violation, as much as a failure message needs. */
export interface Violation {
  id: string
  impact: string | null
  help: string
  targets: string[]
}

/**
 * Runs axe-core on the page as it is and returns the violations of impact
 * serious or critical. axe is evaluated through the DevTools protocol, so
 * the page's Content-Security-Policy stays as served.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
  const source = await axeSource
  await page.evaluate(source)
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: { run(ctx: Document, options: object): Promise<{ violations: unknown[] }> }
      }
    ).axe
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return result.violations as {
      id: string
      impact: string | null
      help: string
      nodes: { target: string[] }[]
    }[]
  })
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }))
}

/** Saves a full-page screenshot of the current state as `test-results/page/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SHOT_DIR, { recursive: true })
  const path = join(SHOT_DIR, `${name}.png`)
  await page.screenshot({ path, fullPage: true })
  return path
}
