/** The variables palette: every variable the server knows, filterable; activating one inserts it at the cursor. */
import type { Dialect, Variable } from '../api-types.js'
import { h, replace } from '../dom.js'
import { insertionFor } from '../editor/insertion.js'

/** The palette for `variables`; `insert` puts a text at the editor's cursor (selecting `select` within it). */
export function palette(
  variables: readonly Variable[],
  dialect: () => Dialect,
  insert: (text: string, select?: { from: number; to: number }) => void,
): HTMLElement {
  const filter = h('input', { id: 'var-filter', type: 'search', placeholder: 'filter', autocomplete: 'off' })
  const list = h('ul', { class: 'palette' })
  const render = () => {
    const q = filter.value.trim().toLowerCase()
    const shown = variables.filter(
      (v) => q === '' || v.key.includes(q) || v.description.toLowerCase().includes(q),
    )
    replace(
      list,
      shown.length === 0
        ? h('li', { class: 'muted' }, 'No variable matches.')
        : shown.map((v) =>
            h(
              'li',
              {},
              h(
                'button',
                {
                  type: 'button',
                  'data-key': v.key,
                  onclick: () => {
                    const { insert: text, select } = insertionFor(v, dialect())
                    insert(text, select)
                  },
                },
                h('code', {}, v.key),
                ' ',
                h('span', { class: `stab stab-${v.stability}` }, v.stability),
              ),
              h('span', { class: 'muted desc' }, v.description, v.value ? ` (now: ${clip(v.value)})` : ''),
            ),
          ),
    )
  }
  filter.addEventListener('input', render)
  render()
  return h(
    'aside',
    { class: 'palette-pane', 'aria-label': 'Variables' },
    h('h2', {}, 'Variables'),
    h('p', { class: 'muted' }, 'Activate one to insert it at the cursor.'),
    h('label', { for: 'var-filter', class: 'visually-hidden' }, 'Filter variables'),
    filter,
    list,
  )
}

function clip(value: string): string {
  const line = value.split('\n', 1)[0] ?? ''
  return line.length > 40 || value.includes('\n') ? `${line.slice(0, 40)}…` : line
}
