/**
 * The diff between two versions of a session: where the first byte changed,
 * in which section and file, and how much a provider can still serve from
 * cache; the text around the change is shown with the changed character marked.
 */
import type { DiffResponse, SessionVersion } from '../api-types.js'
import { grouped, h } from '../dom.js'

const CONTEXT = 160

/** The text around `at` in one version, with the character at `at` marked. */
function excerpt(text: string, at: number, label: string): HTMLElement {
  const start = Math.max(0, at - CONTEXT)
  const end = Math.min(text.length, at + CONTEXT)
  const marked = text.slice(at, at + 1)
  return h(
    'figure',
    { class: 'excerpt' },
    h('figcaption', {}, label),
    h(
      'pre',
      { tabindex: 0 },
      start > 0 ? '…' : '',
      text.slice(start, at),
      h(
        'mark',
        { 'data-testid': 'first-change' },
        marked === '' ? '⟂ (end of text)' : marked === '\n' ? '↵\n' : marked,
      ),
      text.slice(at + 1, end),
      end < text.length ? '…' : '',
    ),
  )
}

/** The panel for one diff answer; the versions' texts, when known, give the excerpts. */
export function diffPanel(result: DiffResponse, a?: SessionVersion, b?: SessionVersion): HTMLElement {
  const d = result.diff
  if (d.identical) {
    return h(
      'section',
      { 'aria-label': 'Diff', class: 'diff' },
      h('p', {}, `v${result.from} and v${result.to} are identical.`),
    )
  }
  const list = (label: string, names: readonly string[]) =>
    names.length === 0
      ? null
      : h(
          'li',
          {},
          `${label}: `,
          names.flatMap((n, i) => [i > 0 ? ', ' : '', h('code', {}, n)]),
        )
  const at = d.firstDifference
  return h(
    'section',
    { 'aria-label': 'Diff', class: 'diff' },
    h(
      'p',
      { 'data-testid': 'diff-summary' },
      at === null ? 'The texts are the same.' : `First changed byte at index ${grouped(at)}`,
      d.section === null
        ? ' (the newer text is a prefix of the older)'
        : [' in section ', h('code', {}, d.section)],
      result.file ? [' from file ', h('code', {}, result.file)] : '',
      '. ',
      h('strong', {}, `${grouped(d.commonPrefixTokens)} tokens`),
      ' before it can still be served from cache.',
    ),
    h('ul', {}, list('changed', d.changed), list('added', d.added), list('removed', d.removed)),
    at !== null && a && b
      ? h(
          'div',
          { class: 'excerpts' },
          excerpt(a.compiled.text, at, `v${result.from}`),
          excerpt(b.compiled.text, at, `v${result.to}`),
        )
      : null,
  )
}
