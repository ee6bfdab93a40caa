/**
 * A tiny element builder. Text always goes in through `textContent`, never
 * as HTML, so nothing the API returns (prompt text, file names) can inject
 * markup into the page.
 */
type Child = Node | string | number | null | undefined | false
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>

/** Creates an element with attributes (`on…` keys add listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue
    if (typeof value === 'function') el.addEventListener(name.slice(2), value)
    else if (value === true) el.setAttribute(name, '')
    else el.setAttribute(name, String(value))
  }
  append(el, children)
  return el
}

/** Appends children, flattening arrays and skipping empty ones. */
export function append(el: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)))
  }
}

/** Replaces an element's children. */
export function replace(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren()
  append(el, children)
}

/** `1 234 567`: digits grouped by thin spaces, the same on every locale. */
export function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f')
}

/** `12.3%` of a share in [0, 1]. */
export function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`
}

/** The first 8 hex digits of a `sha256:` hash. */
export function shortHash(hash: string): string {
  return hash.replace(/^sha256:/, '').slice(0, 8)
}

/** A plural noun: `1 section`, `2 sections`. */
export function count(n: number, noun: string): string {
  return `${grouped(n)} ${noun}${n === 1 ? '' : 's'}`
}

/** A form's submit listener that stays on the page and runs `action`. */
export function onSubmit(action: () => unknown): EventListener {
  return (event) => {
    event.preventDefault()
    void action()
  }
}

/** A table head of column labels; a `*` suffix marks a column narrow screens hide (class `opt`). */
export function head(labels: readonly string[]): HTMLTableSectionElement {
  return h(
    'thead',
    {},
    h(
      'tr',
      {},
      labels.map((label) =>
        label.endsWith('*')
          ? h('th', { scope: 'col', class: 'opt' }, label.slice(0, -1))
          : h('th', { scope: 'col' }, label),
      ),
    ),
  )
}

/** `2026-12-01 10:00 UTC` of an ISO time, the same in every time zone; the input itself when unparsable. */
export function when(iso: string): HTMLTimeElement {
  const t = new Date(iso)
  const text = Number.isNaN(t.getTime()) ? iso : `${t.toISOString().slice(0, 16).replace('T', ' ')} UTC`
  return h('time', { datetime: iso }, text)
}
