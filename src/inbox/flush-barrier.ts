/**
 * The flush barrier of an early turn start (docs/pipeline.md "Early start"): an inbound row
 * committed without waiting for the WAL flush is acknowledged only once a later commit that did
 * wait has returned — the WAL is flushed in order, so that commit's flush covers every commit
 * before it. Barriers asked for while one is on its way share the next statement: one flush
 * for every acknowledgement waiting, as the server's own group commit would give.
 */
import { createBatcher } from '../channel/batch.ts';
import type { Queryable } from '../store/db.ts';

/** Waits for the disk. */
export interface FlushBarrier {
  /** Resolves once every commit that returned before this call is flushed. @throws the database error */
  wait(): Promise<void>;
}

/**
 * A barrier over `db` (its statements must commit synchronously: the main pool, never
 * `Db.relaxed`). `txid_current()` gives the statement a transaction id, so its commit writes a
 * commit record and waits for the flush up to it.
 */
export function createFlushBarrier(db: Queryable): FlushBarrier {
  // A barrier asked for while one is in flight goes with the next statement, which starts after
  // the request (a statement that began before it would not cover its commit).
  const batcher = createBatcher<null, null>(
    async (items) => {
      await db.query('SELECT txid_current()');
      return items.map(() => null);
    },
    { gather: false, inFlight: 1 },
  );
  return {
    async wait() {
      await batcher.submit(null);
    },
  };
}
