import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  browserUnavailable,
  launchBrowser,
  screenshot,
  seriousViolations,
  type TestBrowser,
} from './browser.test-helper.js'
import { type Served, serveProject } from './serve.test-helper.js'

// The inspector page against the real, built `sysprompt serve` on a
// temporary project, in Debian's chromium: one browser and one page for the
// whole file, each state screenshotted and checked by axe-core.

const unavailable = browserUnavailable()
/** How long a poll waits for the page: vitest's default second is too short on a busy machine (the server works on worker threads). */
const SLOW = { timeout: 60_000, interval: 100 }
const AGENTS = '# Project rules\n\nUse pnpm. Run the tests before you push.\n'

describe.skipIf(unavailable !== undefined)(
  `inspector page${unavailable ? ` (skipped: ${unavailable})` : ''}`,
  // A browser on a busy 2-core machine: generous deadlines, never a timed assertion.
  { timeout: 120_000 },
  () => {
    let served: Served
    let browser: TestBrowser
    let page: Page
    const foreign: string[] = []
    const failures: string[] = []

    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${served.url}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await res.text()
      if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`)
      return text === '' ? undefined : JSON.parse(text)
    }

    /** Screenshots the state and expects no serious or critical axe violation in it. */
    const check = async (name: string) => {
      await screenshot(page, name)
      expect(await seriousViolations(page), `axe on ${name}`).toEqual([])
    }

    const editorText = () => page.locator('.cm-content').innerText()

    beforeAll(async () => {
      ;[served, browser] = await Promise.all([serveProject({ 'AGENTS.md': AGENTS }), launchBrowser()])
      page = await browser.context.newPage()
      const origin = new URL(served.url).origin
      page.on('request', (r) => {
        if (new URL(r.url()).origin !== origin && !r.url().startsWith('data:')) foreign.push(r.url())
      })
      page.on('pageerror', (e) => failures.push(e.message))
    }, 120_000)

    afterAll(async () => {
      await browser?.close()
      await served?.stop()
    })

    it('opens on the overview: the summary line, a bar per section, the instruction files', async () => {
      await page.goto(`${served.url}/`)
      const summary = page.getByTestId('summary')
      await expect.poll(() => summary.innerText(), SLOW).toMatch(/\d+ tokens \(o200k\)/)
      expect(await summary.innerText()).toContain('choose a provider or a model for a cache verdict')
      expect(await page.locator('main').innerText()).not.toContain('below-cache-minimum')
      expect(await page.locator('table.sections tbody tr').count()).toBeGreaterThan(0)
      expect(await page.locator('ul.files').innerText()).toContain('AGENTS.md')
      // The first screen, as plain inspect opens: the readers of AGENTS.md on one line.
      expect(await page.locator('ul.agents').innerText()).toMatch(
        /AGENTS\.md read by codex, .*1 files? at start/,
      )
      await check('overview')

      await page.getByLabel('Provider').selectOption('anthropic')
      await page.getByLabel('Model').fill('claude-sonnet-4-5')
      await page.getByRole('button', { name: 'Inspect' }).click()
      await expect.poll(() => summary.innerText(), SLOW).toContain('anthropic')
      expect(await page.locator('main').innerText()).toContain('below-cache-minimum')
      await check('overview-anthropic')

      // As Claude Code would load it: the prefix line speaks of what the harness sends (issue 31, finding 6).
      await page.getByLabel('Discovery as').selectOption('claude')
      await page.getByRole('button', { name: 'Inspect' }).click()
      await expect
        .poll(() => page.locator('main').innerText(), SLOW)
        .toMatch(/claude sends \d+ tokens of instructions/)
    })

    it('edits the template: highlighted tags, live preview, a diagnostic at its line, a variable inserted at the cursor, save, reload', async () => {
      await page.getByRole('link', { name: 'Template' }).click()
      await page.getByTestId('preview-summary').waitFor()
      expect(await page.locator('.cm-tag-insert').count()).toBeGreaterThan(0)
      await check('editor')

      const content = page.locator('.cm-content')
      await content.click()
      await page.keyboard.press('Control+End')
      await page.keyboard.type('\nOS: ')
      await page.keyboard.type('\n[if prompt:cwd]\nunfinished')
      const diagnostic = page.getByTestId('diagnostic')
      await diagnostic.first().waitFor()
      // The editor holds the served template; the typing added `OS: ` and `[if …]` after its last line.
      const loadedTemplate = (await api('GET', '/api/template')).template as string
      const ifLine = loadedTemplate.split(/\r\n|\r|\n/).length + 2
      expect(await diagnostic.first().innerText()).toBe(`line ${ifLine}, column 1`)
      expect(await page.locator('#diagnostics').innerText()).toContain('unclosed-block')
      expect(await page.locator('.cm-lintRange-error').count()).toBeGreaterThan(0)
      await check('editor-diagnostic')

      // Back to the end of the `OS: ` line, then insert a variable from the palette there.
      await diagnostic.first().click()
      await page.keyboard.press('ArrowUp')
      await page.keyboard.press('End')
      await page.locator('button[data-key="system:os"]').click()
      await page.keyboard.press('Control+End')
      await page.keyboard.type('\n[endif]')
      await page.getByTestId('no-diagnostics').waitFor()
      expect(await editorText()).toContain('OS: [system:os]\n[if prompt:cwd]')
      await expect
        .poll(() => page.getByTestId('preview-text').allInnerTexts(), SLOW)
        .toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`OS: ${process.platform} `))]))
      await check('editor-preview')

      await page.getByRole('button', { name: 'Save' }).click()
      await expect.poll(() => page.locator('#save-status').innerText(), SLOW).toMatch(/^Saved\./)
      const saved = await readFile(join(served.project, '.sysprompt', 'template.md'), 'utf8')
      expect(saved).toContain('OS: [system:os]')

      await page.reload()
      await page.getByTestId('preview-summary').waitFor()
      expect(await editorText()).toContain('OS: [system:os]')
      await check('editor-reloaded')
    })

    it('on a stale save shows the conflict and overwrites only when asked', async () => {
      const current = await api('GET', '/api/template')
      await api('PUT', '/api/template', {
        template: `${current.template}\nChanged elsewhere.\n`,
        dialect: current.dialect,
        expectedHash: current.hash,
      })
      await page.locator('.cm-content').click()
      await page.keyboard.press('Control+End')
      await page.keyboard.type('\nMine.')
      await page.getByRole('button', { name: 'Save' }).click()
      const conflict = page.getByRole('alert', { name: 'Save conflict' })
      await conflict.waitFor()
      expect(await conflict.innerText()).toContain('changed on the server')
      await check('editor-conflict')
      expect((await api('GET', '/api/template')).template).toContain('Changed elsewhere.')

      await page.getByRole('button', { name: 'Overwrite with mine' }).click()
      await expect.poll(() => page.locator('#save-status').innerText(), SLOW).toContain('Saved over')
      const after = await api('GET', '/api/template')
      expect(after.template).toContain('Mine.')
      expect(after.template).not.toContain('Changed elsewhere.')
    })

    it('shows a session: its history, the usage outcome recorded through the API, and a diff', async () => {
      const stable = 'Stable words first.\n\n'
      await api('PUT', '/api/template', {
        template: `${stable}Working directory: [prompt:cwd]\n`,
        dialect: 'bracket',
      })
      await api('PUT', '/api/sessions/s-1', { context: {} })
      await api('PUT', '/api/template', {
        template: `${stable}New words.\n\nWorking directory: [prompt:cwd]\n`,
        dialect: 'bracket',
      })
      await api('POST', '/api/sessions/s-1/recompile', { context: {}, reason: 'template-change' })
      await api('POST', '/api/sessions/s-1/usage', {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        usage: { input_tokens: 40, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      })

      await page.getByRole('link', { name: 'Sessions' }).click()
      await page.getByRole('link', { name: 's-1' }).click()
      const usage = page.getByTestId('usage-summary')
      await expect.poll(() => usage.innerText(), SLOW).toContain('1 call recorded')
      expect(await page.locator('.outcome').first().innerText()).toMatch(/^(hot|partial|cold|small)$/)
      await check('sessions')

      await page.getByRole('button', { name: 'Show diff' }).click()
      const summary = page.getByTestId('diff-summary')
      await summary.waitFor()
      expect(await summary.innerText()).toMatch(/First changed byte at index \d+ in section \S+/)
      expect(await summary.innerText()).toMatch(/tokens before it can still be served from cache/)
      const marks = await page.getByTestId('first-change').allInnerTexts()
      expect(marks).toEqual(['W', 'N'])
      expect(await summary.innerText()).toContain(`index ${stable.length}`)
      await check('sessions-diff')
    })

    it('works with the keyboard alone: the views by Tab and Enter, Tab leaves the editor, the palette inserts', async () => {
      await page.goto(`${served.url}/#overview`)
      await page.getByTestId('summary').waitFor()
      const focused = () =>
        page.evaluate(() => {
          const el = document.activeElement
          return { text: el?.textContent ?? '', inEditor: el?.closest('.cm-editor') !== null }
        })
      let steps = 0
      while ((await focused()).text !== 'Template' && steps++ < 10) await page.keyboard.press('Tab')
      await page.keyboard.press('Enter')
      await page.getByTestId('preview-summary').waitFor()
      expect(new URL(page.url()).hash).toBe('#template')

      steps = 0
      while (!(await focused()).inEditor && steps++ < 20) await page.keyboard.press('Tab')
      expect((await focused()).inEditor).toBe(true)
      await page.keyboard.press('Control+End')
      await page.keyboard.type('\nBy keyboard: ')
      await page.keyboard.press('Tab')
      expect((await focused()).inEditor).toBe(false)
      expect(await editorText()).not.toContain('\t')

      steps = 0
      while (!(await page.evaluate(() => document.activeElement?.id === 'var-filter')) && steps++ < 20) {
        await page.keyboard.press('Tab')
      }
      await page.keyboard.type('hostname')
      await page.keyboard.press('Tab')
      await page.keyboard.press('Enter')
      expect((await focused()).inEditor).toBe(true)
      expect(await editorText()).toContain('By keyboard: [system:hostname]')
    })

    it('is readable at 390×844 in the dark scheme, and made no request off the server', async () => {
      await page.setViewportSize({ width: 390, height: 844 })
      await page.emulateMedia({ colorScheme: 'dark' })
      for (const view of ['overview', 'sessions/s-1', 'template']) {
        await page.goto(`${served.url}/#${view}`)
        await page.locator('main h1').waitFor()
        await page.waitForLoadState('networkidle')
        // Nothing wider than the screen: no sideways scrolling of the page.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
        await check(`narrow-dark-${view.replace('/', '-')}`)
      }
      expect(foreign).toEqual([])
      expect(failures).toEqual([])
    })
  },
)
