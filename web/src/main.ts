/**
 * The inspector page (SPEC §10): overview first, then sessions, then the
 * template editor, one view at a time chosen by the address's hash so every
 * view has a link, the back button works, and a reload keeps the place.
 */
import './styles.css'
import { editorView } from './views/editor.js'
import { overviewView } from './views/overview.js'
import { sessionsView } from './views/sessions.js'

const VIEWS = [
  { id: 'overview', label: 'Overview' },
  { id: 'sessions', label: 'Sessions' },
  { id: 'template', label: 'Template' },
] as const

function route(): void {
  const [view = 'overview', ...rest] = location.hash.replace(/^#\/?/, '').split('/')
  const known = VIEWS.some((v) => v.id === view) ? view : 'overview'
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a[data-view]')) {
    if (link.dataset.view === known) link.setAttribute('aria-current', 'page')
    else link.removeAttribute('aria-current')
  }
  const main = document.getElementById('main')!
  document.title = `${VIEWS.find((v) => v.id === known)!.label} · sysprompt`
  if (known === 'sessions')
    sessionsView(main, rest.length > 0 ? decodeURIComponent(rest.join('/')) : undefined)
  else if (known === 'template') editorView(main)
  else overviewView(main)
}

window.addEventListener('hashchange', () => {
  route()
  // After following a link, keyboard and screen-reader users continue in the new view.
  document.getElementById('main')?.focus()
})
route()
