/**
 * The SQLite schema as numbered migrations; `schema_version` records each
 * one applied. A database newer than this list is refused, never altered.
 * Blobs are a rowid table (large rows); the rest are small, keyed rows.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE blobs (hash TEXT PRIMARY KEY, body TEXT NOT NULL);
   CREATE TABLE templates (workspace TEXT PRIMARY KEY, template TEXT NOT NULL, dialect TEXT NOT NULL,
     hash TEXT NOT NULL, updated_at TEXT NOT NULL) WITHOUT ROWID;
   CREATE TABLE sessions (id TEXT PRIMARY KEY, versions INTEGER NOT NULL, current_hash TEXT NOT NULL,
     created_at TEXT NOT NULL, updated_at TEXT NOT NULL) WITHOUT ROWID;
   CREATE TABLE versions (session_id TEXT NOT NULL, version INTEGER NOT NULL, hash TEXT NOT NULL,
     tokens INTEGER NOT NULL, reason TEXT NOT NULL, at TEXT NOT NULL, body TEXT NOT NULL,
     PRIMARY KEY (session_id, version)) WITHOUT ROWID;
   CREATE TABLE usage (session_id TEXT NOT NULL, seq INTEGER NOT NULL, version INTEGER NOT NULL,
     outcome TEXT NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID;`,
]
