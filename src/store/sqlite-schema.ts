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
  // Recordings (SPEC §11): a session's kind and the number its last call took (so a call is numbered
  // by one row update, never by reading the calls before it), versions findable by prefix hash, and
  // the calls, a rowid table (their parts and message hashes make large rows).
  `ALTER TABLE sessions ADD COLUMN kind TEXT;
   ALTER TABLE sessions ADD COLUMN calls INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE versions ADD COLUMN prefix_hash TEXT;
   CREATE INDEX versions_prefix ON versions (session_id, prefix_hash, version) WHERE prefix_hash IS NOT NULL;
   CREATE TABLE calls (session_id TEXT NOT NULL, call INTEGER NOT NULL, version INTEGER NOT NULL,
     conversation TEXT NOT NULL, harness TEXT NOT NULL, harness_version TEXT, provider TEXT NOT NULL,
     endpoint TEXT NOT NULL, model TEXT NOT NULL, status INTEGER NOT NULL, streamed INTEGER NOT NULL,
     started_at TEXT NOT NULL, started_ms INTEGER NOT NULL, first_byte_at TEXT, ended_at TEXT,
     prefix_hash TEXT NOT NULL, parts TEXT NOT NULL, marks TEXT NOT NULL, prompt_cache_key TEXT,
     message_hashes TEXT NOT NULL, usage TEXT, diagnostics TEXT, partial INTEGER,
     PRIMARY KEY (session_id, call));
   CREATE INDEX calls_started ON calls (started_ms);`,
]
