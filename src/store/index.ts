/**
 * `sysprompt/store`: persistent `PromptStore` drivers (SPEC §8). Each loads
 * its database package (an optional peer dependency) only when opened.
 */
export type { PersistentPromptStore, SessionSummary, StoreClockOption } from './common.js'
export { type OpenStoreContext, openStore } from './open.js'
export { defaultStatePath, type StatePathEnvironment } from './paths.js'
export { type PostgresStoreOptions, postgresStore } from './postgres.js'
export { type SqliteStoreOptions, sqliteStore } from './sqlite.js'
