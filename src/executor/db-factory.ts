/**
 * The `db_factory` of one skill call (R-PCTX-07, A-44, R-CALL-09, R-CALL-15): every use opens
 * a fresh short transaction on the gateway's database, and the call knows how many of its
 * transactions are open, so `call_skill` can tell when the caller calls another skill from
 * inside an uncommitted transaction (commit before calling).
 */
import type { DbFactory } from '../runtime/types.ts';
import type { Db } from '../store/db.ts';

/** A call's `db_factory` and the count of its transactions still open. */
export interface TrackedDbFactory {
  /** `(fn) => db.transaction(fn)`: COMMIT when `fn` resolves, ROLLBACK and rethrow when it rejects. */
  factory: DbFactory;
  /** Transactions opened through `factory` that have not ended yet. */
  open(): number;
}

/** Make the tracked `db_factory` of one skill call over `db`. */
export function trackedDbFactory(db: Db): TrackedDbFactory {
  let open = 0;
  const factory: DbFactory = async (fn) => {
    open += 1;
    try {
      return await db.transaction(fn);
    } finally {
      open -= 1;
    }
  };
  return { factory, open: () => open };
}
