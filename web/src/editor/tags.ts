/**
 * Highlighting of template tags in CodeMirror, in either dialect. The tags
 * come from the template language's own tokenizers, so the editor marks
 * exactly what `compileTemplate` will read as a tag, and nothing else
 * (Markdown's `[x]` or `[docs](url)` stay plain in the bracket dialect).
 */
import { type Extension, RangeSetBuilder } from '@codemirror/state'
import {
  Decoration,
  type DecorationSet,
  type EditorView,
  ViewPlugin,
  type ViewUpdate,
} from '@codemirror/view'
import { tokenizeBracket } from '../../../src/template/tokenize-bracket.js'
import { tokenizeMustache } from '../../../src/template/tokenize-mustache.js'
import { TagKind, type TokenizeResult } from '../../../src/template/tokens.js'
import type { Dialect } from '../api-types.js'

const insert = Decoration.mark({ class: 'cm-tag cm-tag-insert' })
const block = Decoration.mark({ class: 'cm-tag cm-tag-block' })
const malformed = Decoration.mark({ class: 'cm-tag cm-tag-malformed' })

/** The tags and malformed spans of a source, as the dialect's tokenizer finds them. */
export function tokenize(source: string, dialect: Dialect): TokenizeResult {
  return dialect === 'bracket' ? tokenizeBracket(source) : tokenizeMustache(source)
}

function decorations(source: string, dialect: Dialect): DecorationSet {
  const { tags, malformed: bad } = tokenize(source, dialect)
  const spans = [
    ...tags.map((t) => ({ from: t.start, to: t.end, deco: t.kind === TagKind.Insert ? insert : block })),
    ...bad.map((m) => ({ from: m.start, to: m.end, deco: malformed })),
  ].sort((a, b) => a.from - b.from || a.to - b.to)
  const builder = new RangeSetBuilder<Decoration>()
  let last = -1
  for (const s of spans) {
    // Tags never overlap; a malformed span inside a tag's range is skipped rather than mis-nested.
    if (s.from < last || s.to <= s.from) continue
    builder.add(s.from, s.to, s.deco)
    last = s.to
  }
  return builder.finish()
}

/** Marks the tags of `dialect` in the document, re-tokenized on every change (linear in the text). */
export function tagHighlight(dialect: Dialect): Extension {
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet
      constructor(view: EditorView) {
        this.decorations = decorations(view.state.doc.toString(), dialect)
      }
      update(update: ViewUpdate) {
        if (update.docChanged) this.decorations = decorations(update.state.doc.toString(), dialect)
      }
    },
    { decorations: (plugin) => plugin.decorations },
  )
}
