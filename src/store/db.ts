/**
 * The database seam: one small interface over node-postgres, with two engines behind it —
 * a real PostgreSQL server (`DATABASE_URL`) and embedded PGlite.
 *
 * Portability rules (both engines stay correct): pass the transaction client down and never
 * call the Db while holding a Tx (PGlite is one session: that deadlocks); schema-qualify
 * names or `SET LOCAL` inside a transaction; COPY FROM STDIN only through {@link Tx.copyFrom}
 * (server engine only) or {@link Db.copyFrom} (embedded engine only), callers keeping a portable
 * path; cross-process coordination
 * only through {@link Db.withLock} / {@link Db.listen}, which fall back to in-process
 * equivalents on the embedded engine.
 */

/** Rows of one statement. */
export interface QueryResult<R> {
  rows: R[];
  /** Rows affected or returned (0 when the driver reports none). */
  rowCount: number;
}

/** Anything that runs one parameterized statement (`$1`, `$2`…). */
export interface Queryable {
  /**
   * Run one statement with positional parameters.
   * @throws the driver's error (`pg.DatabaseError` with `code` = SQLSTATE) on failure.
   */
  query<R = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<QueryResult<R>>;
}

/** A client inside an open transaction. */
export interface Tx extends Queryable {
  /**
   * Run `fn` inside a SAVEPOINT: released on success, rolled back to (and the error
   * rethrown) on failure, leaving the outer transaction usable.
   */
  savepoint<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Server engine only (absent on the embedded engine, whose PGlite bridge has no copy
   * protocol): run `sql` — a `COPY <table> (<cols>) FROM STDIN` in text
   * format — on this transaction's connection, streaming `data` (rows already escaped for the
   * text format: `\t` between columns, `\n` after each row, `\N` for NULL).
   * @returns the number of rows copied.
   * @throws the driver's error (`code` = SQLSTATE, `where` = `COPY <table>, line <n>`); the
   *   transaction is then aborted — run it inside {@link Tx.savepoint} to keep it usable.
   */
  copyFrom?(sql: string, data: string): Promise<number>;
}

/** Which engine is behind a Db. */
export type DbEngine = 'embedded' | 'server';

/** The database of one process. */
export interface Db extends Queryable {
  readonly engine: DbEngine;
  /**
   * Statements whose commit may reach the disk a moment after it returns (on a server,
   * `synchronous_commit = off`: visible to every session at once, flushed by the WAL writer
   * within a fraction of a second; the embedded engine: the Db itself, fully synchronous).
   * Only for writes that record progress of work that is redone when they are missing — the
   * reply with its event's done mark, the started mark, delivery marks, web frames — and an
   * inbound row only when its acknowledgement waits for a later flushed commit (the inbox's
   * early start, src/inbox/flush-barrier.ts). A crash of the database server alone can
   * undo the last of them; the gateway then repeats that work (at least once). A crash of the
   * gateway loses none of them. See docs/pipeline.md "Commits".
   */
  readonly relaxed: Queryable;
  /**
   * Embedded engine only (absent on a server, where a batch INSERT costs the client less CPU
   * than COPY and the commit dominates: docs/audit.md "Group commit"): run `sql` — a
   * `COPY <table> (<cols>) FROM STDIN` in text format — as a statement of its own (its own
   * commit; it waits for the one session like any statement, so it never runs inside another
   * caller's transaction), reading `data` (rows escaped for the text format:
   * src/store/copy-text.ts). PGlite reads them from its `/dev/blob` device (its bridge has no
   * copy protocol); PostgreSQL parses them for less there than the same rows as parameters (docs/audit.md).
   * @returns the number of rows copied.
   * @throws the driver's error (`code` = SQLSTATE); no row is stored then.
   */
  copyFrom?(sql: string, data: string): Promise<number>;
  /** Run `fn` in a transaction: COMMIT on success, ROLLBACK and rethrow on failure. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Run `fn` in a transaction holding an exclusive lock named `key`: a transaction-scoped
   * advisory lock on a server (excludes other processes), an in-process mutex embedded
   * (only one process may open an embedded data dir).
   */
  withLock<T>(key: string, fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Subscribe to notifications on `channel` (LISTEN on a server, in-process embedded).
   * @returns a function that unsubscribes.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /** Publish `payload` on `channel` (pg_notify on a server; in-process embedded). */
  notify(channel: string, payload: string): Promise<void>;
  /** Release every connection; an embedded Db also closes its PGlite instance. */
  close(): Promise<void>;
}

/** A valid LISTEN channel / lock name: lower-case identifier characters only. */
export function assertIdentifier(name: string, what: string): void {
  if (!/^[a-z_][a-z0-9_.]{0,62}$/.test(name)) throw new Error(`invalid ${what}: ${JSON.stringify(name)}`);
}
