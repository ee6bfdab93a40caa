/**
 * Sessions: the list, one session's versions with their reasons and cache
 * outcomes (hit rate, cold calls and why), and a diff between two versions.
 */
import { api } from '../api.js'
import type { SessionSummary, SessionVersion, UsageOutcome, UsageResponse } from '../api-types.js'
import { grouped, h, head, onSubmit, percent, replace, shortHash, when } from '../dom.js'
import { diffPanel } from './diff.js'
import { errorBox, loading } from './status.js'

/** Renders the session list, and the session `selected` when given (from the address). */
export function sessionsView(root: HTMLElement, selected?: string): void {
  const list = h('div', { id: 'session-list' })
  const detail = h('div', { id: 'session-detail', 'aria-live': 'polite' })
  replace(root, h('h1', {}, 'Sessions'), list, detail)
  replace(list, loading('Loading sessions…'))
  api
    .sessions()
    .then(({ sessions }) => {
      replace(list, sessionTable(sessions, selected))
      if (selected !== undefined) void showSession(detail, selected)
    })
    .catch((error) => replace(list, errorBox(error)))
}

function sessionTable(sessions: readonly SessionSummary[], selected?: string): HTMLElement {
  if (sessions.length === 0) {
    return h('p', {}, 'No session yet. Sessions appear here once an agent constructs one through the API.')
  }
  return h(
    'table',
    { 'aria-label': 'Sessions' },
    head(['session', 'versions', 'tokens*', 'last change', 'at*']),
    h(
      'tbody',
      {},
      sessions.map((s) =>
        h(
          'tr',
          {},
          h(
            'td',
            {},
            h(
              'a',
              {
                href: `#sessions/${encodeURIComponent(s.id)}`,
                'aria-current': s.id === selected ? 'true' : null,
              },
              s.id,
            ),
          ),
          h('td', { class: 'num' }, s.versions),
          h('td', { class: 'num opt' }, grouped(s.current.tokens)),
          h('td', {}, s.current.reason),
          h('td', { class: 'opt' }, when(s.current.at)),
        ),
      ),
    ),
  )
}

async function showSession(detail: HTMLElement, id: string): Promise<void> {
  replace(detail, loading(`Loading session ${id}…`))
  try {
    const [{ versions }, usage] = await Promise.all([api.history(id), api.usage(id)])
    const diffOut = h('div', { id: 'diff-out', 'aria-live': 'polite' })
    replace(
      detail,
      h('h2', {}, 'Session ', h('code', {}, id)),
      usageSummary(usage),
      historyTable(versions, usage.outcomes),
      versions.length < 2
        ? h('p', { class: 'muted' }, 'One version: nothing to compare yet.')
        : diffForm(id, versions, diffOut),
      diffOut,
    )
  } catch (error) {
    replace(detail, errorBox(error))
  }
}

function usageSummary(usage: UsageResponse): HTMLElement {
  const n = usage.outcomes.length
  if (n === 0) return h('p', { 'data-testid': 'usage-summary' }, 'No usage recorded for this session yet.')
  const cold = usage.outcomes.filter((o) => o.outcome === 'cold').length
  return h(
    'p',
    { 'data-testid': 'usage-summary' },
    `${grouped(n)} call${n === 1 ? '' : 's'} recorded · hit rate ${usage.hitRate === null ? 'n/a' : percent(usage.hitRate)} · ${grouped(cold)} cold`,
  )
}

function outcomeList(outcomes: readonly UsageOutcome[]): HTMLElement | string {
  if (outcomes.length === 0) return 'no calls'
  return h(
    'ul',
    { class: 'outcomes' },
    outcomes.map((o) =>
      h(
        'li',
        {},
        h('span', { class: `outcome outcome-${o.outcome}` }, o.outcome),
        ` ${grouped(o.cachedTokens)}/${grouped(o.inputTokens)} cached · ${o.provider} ${o.model}`,
        o.why ? h('span', { class: 'why' }, ` · why: ${o.why}`) : null,
      ),
    ),
  )
}

function historyTable(versions: readonly SessionVersion[], outcomes: readonly UsageOutcome[]): HTMLElement {
  return h(
    'table',
    { 'aria-label': 'Versions, oldest first' },
    head(['version', 'reason', 'tokens', 'hash*', 'at*', 'cache outcomes']),
    h(
      'tbody',
      {},
      versions.map((v) => {
        const mine = outcomes.filter((o) => o.version === v.version)
        const hot = mine.filter((o) => o.outcome === 'hot').length
        return h(
          'tr',
          {},
          h('td', { class: 'num' }, v.version),
          h('td', {}, v.reason),
          h('td', { class: 'num' }, grouped(v.tokens)),
          h('td', { class: 'opt' }, h('code', {}, shortHash(v.hash))),
          h('td', { class: 'opt' }, when(v.at)),
          h(
            'td',
            {},
            mine.length > 0 ? h('span', { class: 'muted' }, `${hot}/${mine.length} hot `) : null,
            outcomeList(mine),
          ),
        )
      }),
    ),
  )
}

function diffForm(id: string, versions: readonly SessionVersion[], out: HTMLElement): HTMLElement {
  const options = (chosen: number) =>
    versions.map((v) =>
      h('option', { value: v.version, selected: v.version === chosen }, `v${v.version} (${v.reason})`),
    )
  const last = versions[versions.length - 1]!.version
  const from = h('select', { id: 'diff-from' }, options(last - 1))
  const to = h('select', { id: 'diff-to' }, options(last))
  const byVersion = new Map(versions.map((v) => [v.version, v]))
  const run = async () => {
    replace(out, loading('Comparing…'))
    try {
      const a = Number(from.value)
      const b = Number(to.value)
      const result = await api.diff(id, a, b)
      replace(out, diffPanel(result, byVersion.get(a), byVersion.get(b)))
    } catch (error) {
      replace(out, errorBox(error))
    }
  }
  return h(
    'form',
    {
      class: 'toolbar',
      'aria-label': 'Compare two versions',
      onsubmit: onSubmit(run),
    },
    h('span', { class: 'field' }, h('label', { for: 'diff-from' }, 'From'), from),
    h('span', { class: 'field' }, h('label', { for: 'diff-to' }, 'to'), to),
    h('button', { type: 'submit' }, 'Show diff'),
  )
}
