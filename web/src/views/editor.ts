/**
 * The template editor: CodeMirror with the dialect's tags highlighted, the
 * diagnostics of the last preview marked at their line and column, a
 * variables palette that inserts at the cursor, a debounced live preview
 * through `POST /api/preview`, and save with `expectedHash` (a 409 shows the
 * server's version and lets the user reload it or overwrite on purpose).
 */
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands'
import { lintGutter, setDiagnostics } from '@codemirror/lint'
import { Compartment, EditorState } from '@codemirror/state'
import { EditorView, keymap, lineNumbers } from '@codemirror/view'
import { ApiError, api } from '../api.js'
import type { Diagnostic, Dialect, PreviewResponse, TemplateResponse, Variable } from '../api-types.js'
import { count, grouped, h, replace, shortHash } from '../dom.js'
import { offsetOf, toLint } from '../editor/diagnostics.js'
import { tagHighlight } from '../editor/tags.js'
import { palette } from './palette.js'
import { errorBox, loading } from './status.js'

/** How long typing must pause before a preview is asked for. */
const PREVIEW_DELAY_MS = 300

/** The diagnostics a 422 carries in `details` (a list, or `{ diagnostics }`). */
function detailDiagnostics(details: unknown): Diagnostic[] {
  const list = Array.isArray(details) ? details : (details as { diagnostics?: unknown } | null)?.diagnostics
  return Array.isArray(list) ? (list as Diagnostic[]).filter((d) => typeof d?.line === 'number') : []
}

/** Renders the editor into `root`. */
export function editorView(root: HTMLElement): void {
  replace(root, h('h1', {}, 'Template'), loading('Loading the template…'))
  Promise.all([api.template(), api.variables()])
    .then(([template, { variables }]) => mount(root, template, variables))
    .catch((error) => replace(root, h('h1', {}, 'Template'), errorBox(error)))
}

function mount(root: HTMLElement, loaded: TemplateResponse, variables: readonly Variable[]): void {
  let dialect: Dialect = loaded.dialect
  let baseHash = loaded.hash
  let saved = loaded.template
  let previewSeq = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const highlight = new Compartment()

  const status = h('p', { id: 'save-status', role: 'status', class: 'muted' })
  const diagList = h('div', { id: 'diagnostics', 'aria-live': 'polite' })
  const preview = h('div', { id: 'preview', 'aria-live': 'polite', 'aria-busy': 'false' })
  const conflict = h('div', { id: 'conflict' })
  const dialectSelect = h(
    'select',
    { id: 'dialect' },
    (['bracket', 'mustache'] as const).map((d) => h('option', { value: d, selected: d === dialect }, d)),
  )
  const saveButton = h('button', { type: 'button', id: 'save' }, 'Save')
  const editorHost = h('div', { class: 'editor-host' })

  const view = new EditorView({
    parent: editorHost,
    state: EditorState.create({
      doc: loaded.template,
      extensions: [
        lineNumbers(),
        history(),
        // No Tab binding: Tab keeps moving focus, so the page stays usable with the keyboard alone.
        keymap.of([
          ...defaultKeymap,
          ...historyKeymap,
          {
            key: 'Mod-s',
            run: () => {
              void save()
              return true
            },
          },
        ]),
        EditorView.lineWrapping,
        lintGutter(),
        highlight.of(tagHighlight(dialect)),
        EditorView.contentAttributes.of({
          'aria-label': 'Template source',
          'aria-describedby': 'editor-help',
        }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) changed()
        }),
      ],
    }),
  })

  const text = () => view.state.doc.toString()
  const describeState = (note?: string) => {
    const dirty = text() !== saved
    replace(
      status,
      note ??
        (dirty
          ? 'Unsaved changes.'
          : loaded.isDefault && baseHash === loaded.hash
            ? 'The built-in template (not saved yet).'
            : 'Saved.'),
      ` Hash ${shortHash(baseHash)}.`,
    )
  }

  const showDiagnostics = (diagnostics: readonly Diagnostic[]) => {
    view.dispatch(setDiagnostics(view.state, toLint(view.state.doc, diagnostics, dialect)))
    if (diagnostics.length === 0) {
      replace(diagList, h('p', { class: 'muted', 'data-testid': 'no-diagnostics' }, 'No diagnostics.'))
      return
    }
    replace(
      diagList,
      h('h2', {}, count(diagnostics.length, 'diagnostic')),
      h(
        'ul',
        { class: 'diagnostics' },
        diagnostics.map((d) =>
          h(
            'li',
            {},
            h(
              'button',
              {
                type: 'button',
                class: 'link',
                'data-testid': 'diagnostic',
                onclick: () => {
                  const at = offsetOf(view.state.doc, d.line, d.column)
                  view.dispatch({ selection: { anchor: at }, scrollIntoView: true })
                  view.focus()
                },
              },
              `line ${d.line}, column ${d.column}`,
            ),
            ` ${d.code}: ${d.message}`,
          ),
        ),
      ),
    )
  }

  const showPreview = (result: PreviewResponse) => {
    const c = result.compiled
    replace(
      preview,
      h(
        'p',
        { 'data-testid': 'preview-summary' },
        `${grouped(c.tokens)} tokens (${c.tokenizer}) · ${grouped(c.bytes)} bytes · ${count(c.sections.length, 'section')}`,
      ),
      c.sections.length === 0
        ? h('p', {}, 'The prompt is empty.')
        : c.sections.map((s) =>
            h(
              'section',
              { class: 'preview-section', 'aria-label': `Section ${s.name}` },
              h(
                'h3',
                {},
                h('code', {}, s.name),
                ` · ${grouped(s.tokens)} tokens · `,
                h('span', { class: `stab stab-${s.stability}` }, s.stability),
              ),
              h('pre', { tabindex: 0, 'data-testid': 'preview-text' }, c.text.slice(s.start, s.end)),
            ),
          ),
      c.warnings.length === 0
        ? null
        : h(
            'ul',
            { 'aria-label': 'Compile warnings' },
            c.warnings.map((w) => h('li', { class: 'warn' }, `${w.code}: ${w.message}`)),
          ),
    )
  }

  const runPreview = async () => {
    const seq = ++previewSeq
    preview.setAttribute('aria-busy', 'true')
    try {
      const result = await api.preview({ template: text(), dialect, context: {} })
      if (seq !== previewSeq) return
      showPreview(result)
      showDiagnostics(result.diagnostics)
    } catch (error) {
      if (seq !== previewSeq) return
      if (error instanceof ApiError && error.status === 422) showDiagnostics(detailDiagnostics(error.details))
      replace(preview, errorBox(error))
    } finally {
      if (seq === previewSeq) preview.setAttribute('aria-busy', 'false')
    }
  }

  const changed = () => {
    describeState()
    clearTimeout(timer)
    timer = setTimeout(() => void runPreview(), PREVIEW_DELAY_MS)
  }

  const afterSave = (result: TemplateResponse, note: string) => {
    baseHash = result.hash
    saved = result.template
    dialect = result.dialect
    replace(conflict)
    describeState(note)
  }

  const save = async (overwriteHash?: string) => {
    saveButton.disabled = true
    try {
      const result = await api.saveTemplate({
        template: text(),
        dialect,
        expectedHash: overwriteHash ?? baseHash,
      })
      afterSave(result, overwriteHash ? 'Saved over the server’s version.' : 'Saved.')
      if (result.diagnostics) showDiagnostics(result.diagnostics)
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) await showConflict()
      else {
        if (error instanceof ApiError && error.status === 422)
          showDiagnostics(detailDiagnostics(error.details))
        replace(status, errorBox(error))
      }
    } finally {
      saveButton.disabled = false
    }
  }

  const reloadFrom = (theirs: TemplateResponse) => {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: theirs.template } })
    setDialect(theirs.dialect)
    afterSave(theirs, 'Reloaded the server’s version.')
    void runPreview()
  }

  const showConflict = async () => {
    let theirs: TemplateResponse
    try {
      theirs = await api.template()
    } catch (error) {
      replace(conflict, errorBox(error))
      return
    }
    const reload = h(
      'button',
      { type: 'button', onclick: () => reloadFrom(theirs) },
      'Reload theirs (drop my edits)',
    )
    const overwrite = h(
      'button',
      { type: 'button', class: 'danger', onclick: () => void save(theirs.hash) },
      'Overwrite with mine',
    )
    replace(
      conflict,
      h(
        'section',
        { class: 'conflict', role: 'alert', 'aria-label': 'Save conflict' },
        h('h2', {}, 'The template changed on the server'),
        h(
          'p',
          {},
          `You edited hash ${shortHash(baseHash)}; the server now holds ${shortHash(theirs.hash)}` +
            `${theirs.updatedAt ? ` (saved ${theirs.updatedAt})` : ''}. ${firstChangedLine(saved, theirs.template)}`,
        ),
        h(
          'details',
          {},
          h('summary', {}, 'The server’s version'),
          h('pre', { tabindex: 0 }, theirs.template),
        ),
        h('div', { class: 'toolbar' }, reload, overwrite),
      ),
    )
    reload.focus()
  }

  const setDialect = (d: Dialect) => {
    dialect = d
    dialectSelect.value = d
    view.dispatch({ effects: highlight.reconfigure(tagHighlight(d)) })
  }
  dialectSelect.addEventListener('change', () => {
    setDialect(dialectSelect.value as Dialect)
    changed()
  })
  saveButton.addEventListener('click', () => void save())

  replace(
    root,
    h('h1', {}, 'Template'),
    h(
      'div',
      { class: 'toolbar' },
      h('label', { for: 'dialect' }, 'Dialect'),
      dialectSelect,
      saveButton,
      status,
    ),
    conflict,
    h(
      'div',
      { class: 'editor-grid' },
      h(
        'div',
        { class: 'editor-main' },
        h(
          'p',
          { id: 'editor-help', class: 'muted' },
          'Tab leaves the editor; Ctrl+S (⌘S) saves. Tags of the chosen dialect are highlighted.',
        ),
        editorHost,
        diagList,
      ),
      palette(
        variables,
        () => dialect,
        (insert, select) => insertAtCursor(view, insert, select),
      ),
      h('div', { class: 'preview-pane' }, h('h2', {}, 'Live preview'), preview),
    ),
  )
  describeState()
  void runPreview()
}

/** Where two texts first differ, as a sentence naming the line. */
function firstChangedLine(mine: string, theirs: string): string {
  const a = mine.split('\n')
  const b = theirs.split('\n')
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  if (i === a.length && i === b.length) return 'The texts are the same.'
  return `Their version first differs from the one you loaded at line ${i + 1}.`
}

function insertAtCursor(view: EditorView, insert: string, select?: { from: number; to: number }): void {
  const { from, to } = view.state.selection.main
  view.dispatch({
    changes: { from, to, insert },
    selection: select
      ? { anchor: from + select.from, head: from + select.to }
      : { anchor: from + insert.length },
    scrollIntoView: true,
  })
  view.focus()
}
