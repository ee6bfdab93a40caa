import { relative, sep } from 'node:path'
import { isInside } from '../index.js'

/** A path for people: relative to `base` when inside it, else absolute (built-in `presets/…` paths unchanged). */
export function shown(path: string, base: string): string {
  if (path.startsWith('presets/')) return path
  if (!isInside(base, path)) return path
  const rel = relative(base, path)
  return rel === '' ? '.' : rel.split(sep).join('/')
}
