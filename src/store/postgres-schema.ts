/**
 * The PostgreSQL schema as numbered migrations, applied under an advisory
 * lock so that servers starting together migrate once; `schema_version`
 * records each one. `{s}` is replaced by the schema prefix (`"name".` or
 * nothing for the connection's search path).
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  `CREATE TABLE {s}blobs (hash text PRIMARY KEY, body text NOT NULL);
   CREATE TABLE {s}templates (workspace text PRIMARY KEY, template text NOT NULL, dialect text NOT NULL,
     hash text NOT NULL, updated_at text NOT NULL);
   CREATE TABLE {s}sessions (id text PRIMARY KEY, versions integer NOT NULL, current_hash text NOT NULL,
     created_at text NOT NULL, updated_at text NOT NULL);
   CREATE TABLE {s}versions (session_id text NOT NULL, version integer NOT NULL, hash text NOT NULL,
     tokens integer NOT NULL, reason text NOT NULL, at text NOT NULL, body text NOT NULL,
     PRIMARY KEY (session_id, version));
   CREATE TABLE {s}usage (seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, session_id text NOT NULL,
     version integer NOT NULL, outcome text NOT NULL);
   CREATE INDEX usage_session ON {s}usage (session_id, seq);`,
  // Recordings (SPEC §11): a session's kind and the number its last call took (a call is numbered by
  // one row update, which also serialises concurrent callers), versions findable by prefix hash, and
  // the calls with their JSON as jsonb.
  `ALTER TABLE {s}sessions ADD COLUMN kind text, ADD COLUMN calls integer NOT NULL DEFAULT 0;
   ALTER TABLE {s}versions ADD COLUMN prefix_hash text;
   CREATE INDEX versions_prefix ON {s}versions (session_id, prefix_hash, version) WHERE prefix_hash IS NOT NULL;
   CREATE TABLE {s}calls (session_id text NOT NULL, call integer NOT NULL, version integer NOT NULL,
     conversation text NOT NULL, harness text NOT NULL, harness_version text, provider text NOT NULL,
     endpoint text NOT NULL, model text NOT NULL, status integer NOT NULL, streamed boolean NOT NULL,
     started_at text NOT NULL, started_ms bigint NOT NULL, first_byte_at text, ended_at text,
     prefix_hash text NOT NULL, parts jsonb NOT NULL, marks jsonb NOT NULL, prompt_cache_key text,
     message_hashes jsonb NOT NULL, usage jsonb, diagnostics jsonb, partial boolean,
     PRIMARY KEY (session_id, call));
   CREATE INDEX calls_started ON {s}calls (started_ms);`,
]

/** The advisory lock key migrations hold (any constant; "sysp" in ASCII). */
export const MIGRATION_LOCK = 0x73797370
