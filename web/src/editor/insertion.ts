/** What the variables palette inserts at the cursor. */
import type { Dialect, Variable } from '../api-types.js'

/** The text that inserts `key` in a dialect. */
export function tagFor(key: string, dialect: Dialect): string {
  return dialect === 'bracket' ? `[${key}]` : `{{${key}}}`
}

/** What the palette inserts for a variable; a pattern key (`file:<path>`) gets a selected placeholder. */
export function insertionFor(
  v: Variable,
  dialect: Dialect,
): { insert: string; select?: { from: number; to: number } } {
  const open = v.key.indexOf('<')
  if (!v.pattern && open === -1) return { insert: tagFor(v.key, dialect) }
  const prefix = open === -1 ? v.key : v.key.slice(0, open)
  const placeholder =
    v.example?.startsWith(prefix) && v.example.length > prefix.length
      ? v.example.slice(prefix.length)
      : 'path'
  const insert = tagFor(prefix + placeholder, dialect)
  const from = insert.indexOf(prefix) + prefix.length
  return { insert, select: { from, to: from + placeholder.length } }
}
