/**
 * What a long connection keeps across restarts and takeovers (docs/operations-delivery.md
 * "Resuming a long connection"): a small JSON value on the transport's lease row
 * (`skillgate.channel_leases.resume_state`, migration 0039), such as the Discord gateway's
 * session. Only the lease holder writes it: the write names holder and generation and changes
 * nothing once the lease has moved on or expired (fencing by token, in the same statement).
 */
import type { Queryable } from '../store/db.ts';

/** The lease holder's view of its transport's stored state (given to the adapter through its host). */
export interface ConnectionState {
  /** The stored value, or null when there is none. */
  load(): Promise<unknown>;
  /**
   * Store `value` (null clears it). @returns false when nothing was written because this replica
   * no longer holds the lease. @throws when the database could not be reached.
   */
  save(value: unknown): Promise<boolean>;
}

/** The table side of {@link ConnectionState}, per lease key. */
export interface ConnectionStateStore {
  load(key: string): Promise<unknown>;
  /** Write when `holder` holds `generation` of `key` and it has not expired. @returns whether it wrote. */
  save(key: string, holder: string, generation: number, value: unknown): Promise<boolean>;
}

/** The state column of the lease table over `db`. */
export function pgConnectionStateStore(db: Queryable): ConnectionStateStore {
  return {
    async load(key) {
      const { rows } = await db.query<{ resume_state: unknown }>('SELECT resume_state FROM skillgate.channel_leases WHERE key = $1', [key]);
      return rows[0]?.resume_state ?? null;
    },
    async save(key, holder, generation, value) {
      const r = await db.query(
        `UPDATE skillgate.channel_leases SET resume_state = $4::jsonb
          WHERE key = $1 AND holder = $2 AND generation = $3 AND expires_at > now()`,
        [key, holder, generation, value === null || value === undefined ? null : JSON.stringify(value)],
      );
      return r.rowCount > 0;
    },
  };
}
