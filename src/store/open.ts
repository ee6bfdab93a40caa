import { isAbsolute, resolve } from 'node:path'
import { StoreError } from '../compile/store-errors.js'
import type { PersistentPromptStore } from './common.js'
import { defaultStatePath } from './paths.js'
import { postgresStore } from './postgres.js'
import { sqliteStore } from './sqlite.js'

/** Where `openStore` resolves relative paths and reads `XDG_STATE_HOME`. */
export interface OpenStoreContext {
  cwd?: string
  env?: Record<string, string | undefined>
}

/**
 * Opens the store a `--store` value names: `sqlite:PATH` (relative to
 * `cwd`), `postgres://…` or `postgresql://…`; without a value, the SQLite
 * file in the user's state directory (`defaultStatePath`), never one in the
 * repository. Anything else is a `StoreError` coded `invalid`.
 */
export function openStore(spec: string | undefined, context: OpenStoreContext = {}): PersistentPromptStore {
  if (spec === undefined || spec === '') {
    const env = context.env ?? process.env
    return sqliteStore({ path: defaultStatePath({ env }), createParent: true })
  }
  if (spec.startsWith('sqlite:')) {
    const path = spec.slice('sqlite:'.length)
    if (path === '') throw invalidSpec(spec)
    return sqliteStore({ path: isAbsolute(path) ? path : resolve(context.cwd ?? process.cwd(), path) })
  }
  if (/^postgres(?:ql)?:\/\//.test(spec)) return postgresStore({ connectionString: spec })
  throw invalidSpec(spec)
}

function invalidSpec(spec: string): StoreError {
  const shown = spec.replace(/\/\/[^@/]*@/, '//…@')
  return new StoreError({
    code: 'invalid',
    operation: 'open',
    detail: `"${shown}" names no store; pass sqlite:PATH or postgres://user@host/database`,
  })
}
