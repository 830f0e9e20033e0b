/**
 * {@link Db} over a node-postgres Pool — the one code path for both engines.
 */
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';
import type pg from 'pg';
import type * as copyStreams from 'pg-copy-streams';
import { assertIdentifier, type Db, type DbEngine, type Queryable, type QueryResult, type Tx } from './db.ts';
import { forgetStatement, isStalePlan, statementName } from './prepared.ts';

/**
 * One statement on `q` (a pool, or a client inside a transaction), named when it is a hot text
 * (src/store/prepared.ts). On the pool a refused named form is run again unnamed; inside a
 * transaction it cannot be (the transaction is aborted), so the error is thrown.
 */
async function run<R>(
  q: pg.Pool | pg.PoolClient,
  text: string,
  values: readonly unknown[] | undefined,
  retry: boolean,
): Promise<QueryResult<R>> {
  const res = await runOnce(q, text, values as unknown[] | undefined, retry);
  return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
}

async function runOnce(q: pg.Pool | pg.PoolClient, text: string, values: unknown[] | undefined, retry: boolean): Promise<pg.QueryResult> {
  const name = statementName(text);
  if (name === undefined) return q.query(text, values);
  try {
    return await q.query({ name, text, values });
  } catch (err) {
    if (!isStalePlan(err)) throw err;
    forgetStatement(text);
    if (!retry) throw err;
    return q.query(text, values);
  }
}

class PoolTx implements Tx {
  private depth = 0;
  /** {@link Tx.copyFrom}: set on the server engine only. */
  readonly copyFrom?: (sql: string, data: string) => Promise<number>;

  constructor(
    private readonly client: pg.PoolClient,
    engine: DbEngine,
  ) {
    if (engine === 'server') this.copyFrom = (sql, data) => this.copy(sql, data);
  }

  private async copy(sql: string, data: string): Promise<number> {
    // pg-copy-streams is loaded at the first COPY, not by every start (docs/performance.md "Start-up").
    const { from: copyFromStdin } = createRequire(import.meta.url)('pg-copy-streams') as typeof copyStreams;
    const stream = this.client.query(copyFromStdin(sql));
    await pipeline(Readable.from([data], { objectMode: false }), stream);
    return stream.rowCount;
  }

  async query<R>(text: string, values?: readonly unknown[]): Promise<QueryResult<R>> {
    return run<R>(this.client, text, values, false);
  }

  async savepoint<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const name = `sg_sp_${++this.depth}`;
    await this.client.query(`SAVEPOINT ${name}`);
    try {
      const out = await fn(this);
      await this.client.query(`RELEASE SAVEPOINT ${name}`);
      return out;
    } catch (err) {
      await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw err;
    } finally {
      this.depth--;
    }
  }
}

/** Options of {@link PoolDb}. */
export interface PoolDbOptions {
  engine: DbEngine;
  /** Called by close() after the pool ended (the embedded engine closes PGlite here). */
  onClose?: () => Promise<void>;
  /** For LISTEN on a server: a factory of a dedicated (non-pooled) client. */
  listenClient?: () => pg.Client;
  /** The pool behind {@link Db.relaxed} (a server's `synchronous_commit = off` sessions); absent: the main pool. */
  relaxedPool?: pg.Pool;
  /**
   * Embedded engine: run a `COPY … FROM STDIN` on the PGlite instance itself, reading `data`
   * (src/store/open.ts). {@link PoolDb.copyFrom} calls it while holding the pool's one client,
   * so no other statement or transaction is on the session meanwhile. Absent: no copyFrom.
   */
  embeddedCopy?: (sql: string, data: string) => Promise<number>;
}

/** A Db backed by a pg.Pool. */
export class PoolDb implements Db {
  readonly engine: DbEngine;
  private readonly local = new EventEmitter();
  private mutex: Promise<unknown> = Promise.resolve();
  private listener?: { client: pg.Client; channels: Map<string, number> };
  /**
   * Every use of the listener client (connect, LISTEN, UNLISTEN), one after the other: a pg
   * client runs one query at a time, and concurrent listen() calls (the outbox, the inbox and
   * the web hub start together) must neither overlap their LISTENs nor open two clients.
   */
  private listenerOps: Promise<unknown> = Promise.resolve();
  private closed = false;

  readonly relaxed: Queryable;
  /** {@link Db.copyFrom}: embedded only, when {@link PoolDbOptions.embeddedCopy} is given. */
  readonly copyFrom?: (sql: string, data: string) => Promise<number>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: PoolDbOptions,
  ) {
    this.engine = opts.engine;
    const relaxedPool = opts.relaxedPool;
    this.relaxed = relaxedPool
      ? {
          query: <R>(text: string, values?: readonly unknown[]): Promise<QueryResult<R>> => run<R>(relaxedPool, text, values, true),
        }
      : this;
    const copy = this.engine === 'embedded' ? opts.embeddedCopy : undefined;
    if (copy) this.copyFrom = (sql, data) => this.holdingSession(() => copy(sql, data));
    this.local.setMaxListeners(0);
  }

  /**
   * `op` while holding the embedded pool's one client: the session's mutex, so no other
   * statement or transaction runs on PGlite meanwhile. A failed `op` leaves the client usable.
   */
  private async holdingSession<T>(op: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      return await op();
    } finally {
      client.release();
    }
  }

  /**
   * A Db written out as JSON (a skill echoing its runtime context, a log line) shows its
   * engine only: never the pool, its connection settings or the statements it holds.
   */
  toJSON(): { engine: DbEngine } {
    return { engine: this.engine };
  }

  async query<R>(text: string, values?: readonly unknown[]): Promise<QueryResult<R>> {
    if (this.engine === 'embedded') return this.embeddedQuery<R>(text, values);
    return run<R>(this.pool, text, values, true);
  }

  /**
   * A statement on the embedded engine. pg.Pool#query destroys its client when the statement
   * fails; PGlite's one session then gets a new client while the old one's Sync is still queued,
   * and the next statements read the wrong answers ("Connection terminated unexpectedly").
   * A failed statement leaves nothing to discard here, so the client is kept.
   */
  private async embeddedQuery<R>(text: string, values?: readonly unknown[]): Promise<QueryResult<R>> {
    const client = await this.pool.connect();
    try {
      return await run<R>(client, text, values, true);
    } finally {
      client.release();
    }
  }

  async transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      try {
        const out = await fn(new PoolTx(client, this.engine));
        await client.query('COMMIT');
        return out;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        throw err;
      }
    } finally {
      client.release(broken);
    }
  }

  async withLock<T>(key: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
    assertIdentifier(key, 'lock name');
    if (this.engine === 'server') {
      return this.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
        return fn(tx);
      });
    }
    const run = this.mutex.then(() => this.transaction(fn));
    this.mutex = run.catch(() => undefined);
    return run;
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    assertIdentifier(channel, 'channel');
    const handler = (payload: string): void => onPayload(payload);
    this.local.on(channel, handler);
    if (this.engine === 'server' && this.opts.listenClient) {
      await this.onListener(async () => {
        if (!this.listener) {
          const client = this.opts.listenClient!();
          await client.connect();
          client.on('notification', (n) => this.local.emit(n.channel, n.payload ?? ''));
          client.on('error', () => undefined);
          this.listener = { client, channels: new Map() };
        }
        const count = this.listener.channels.get(channel) ?? 0;
        if (count === 0) await this.listener.client.query(`LISTEN "${channel}"`);
        this.listener.channels.set(channel, count + 1);
      }).catch((err: unknown) => {
        this.local.off(channel, handler);
        throw err;
      });
    }
    return async () => {
      this.local.off(channel, handler);
      await this.onListener(async () => {
        const l = this.listener;
        if (!l) return;
        const count = (l.channels.get(channel) ?? 1) - 1;
        l.channels.set(channel, count);
        if (count === 0 && !this.closed) await l.client.query(`UNLISTEN "${channel}"`);
      });
    };
  }

  /** Run `op` on the listener client after every earlier one finished (see listenerOps). */
  private onListener<T>(op: () => Promise<T>): Promise<T> {
    const run = this.listenerOps.then(op, op);
    this.listenerOps = run.catch(() => undefined);
    return run;
  }

  async notify(channel: string, payload: string): Promise<void> {
    assertIdentifier(channel, 'channel');
    if (this.engine === 'server') {
      await this.pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
      return;
    }
    queueMicrotask(() => this.local.emit(channel, payload));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.local.removeAllListeners();
    await this.listenerOps;
    if (this.listener) await this.listener.client.end().catch(() => undefined);
    await this.pool.end();
    await this.opts.relaxedPool?.end();
    await this.opts.onClose?.();
  }
}
