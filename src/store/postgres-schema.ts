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
]

/** The advisory lock key migrations hold (any constant; "sysp" in ASCII). */
export const MIGRATION_LOCK = 0x73797370
