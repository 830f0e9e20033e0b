/**
 * Leases of long connections in PostgreSQL (`skillgate.channel_leases`, migration 0033): one
 * row per transport key, taken when free or expired, renewed by its holder's heartbeats. Every
 * time comes from the database (`now()`), the one clock all replicas share. `generation` is the
 * fencing token (docs/operations-delivery.md "One owner per long connection").
 */
import type { Queryable } from '../store/db.ts';

/** What {@link runLongConnection} needs from a lease table. */
export interface LeaseStore {
  /** Take `key` when nobody holds it or its lease expired. @returns the new generation, or null when another replica holds it. */
  acquire(key: string, holder: string, ttlMs: number): Promise<number | null>;
  /** Extend the lease. @returns false when it is no longer ours (expired, or another generation). */
  renew(key: string, holder: string, generation: number, ttlMs: number): Promise<boolean>;
  /** True while `holder` holds `generation` of `key` and it has not expired. */
  holds(key: string, holder: string, generation: number): Promise<boolean>;
  /** Give the lease up at once (graceful stop), so another replica takes over without waiting for expiry. */
  release(key: string, holder: string, generation: number): Promise<void>;
}

/** One lease as stored (console, tests). */
export interface LeaseRow {
  key: string;
  holder: string;
  generation: number;
  expires_at: Date;
}

/** The lease table over `db`. */
export function pgLeaseStore(db: Queryable): LeaseStore {
  return {
    async acquire(key, holder, ttlMs) {
      const { rows } = await db.query<{ generation: string }>(
        `INSERT INTO skillgate.channel_leases (key, holder, generation, acquired_at, renewed_at, expires_at)
         VALUES ($1, $2, 1, now(), now(), now() + $3 * interval '1 millisecond')
         ON CONFLICT (key) DO UPDATE SET holder = EXCLUDED.holder, generation = skillgate.channel_leases.generation + 1,
           acquired_at = now(), renewed_at = now(), expires_at = EXCLUDED.expires_at
         WHERE skillgate.channel_leases.expires_at <= now()
         RETURNING generation::text`,
        [key, holder, ttlMs],
      );
      return rows[0] ? Number(rows[0].generation) : null;
    },
    async renew(key, holder, generation, ttlMs) {
      const r = await db.query(
        `UPDATE skillgate.channel_leases SET renewed_at = now(), expires_at = now() + $4 * interval '1 millisecond'
          WHERE key = $1 AND holder = $2 AND generation = $3 AND expires_at > now()`,
        [key, holder, generation, ttlMs],
      );
      return r.rowCount > 0;
    },
    async holds(key, holder, generation) {
      const r = await db.query(
        'SELECT 1 FROM skillgate.channel_leases WHERE key = $1 AND holder = $2 AND generation = $3 AND expires_at > now()',
        [key, holder, generation],
      );
      return r.rowCount > 0;
    },
    async release(key, holder, generation) {
      await db.query('UPDATE skillgate.channel_leases SET expires_at = now() WHERE key = $1 AND holder = $2 AND generation = $3', [
        key,
        holder,
        generation,
      ]);
    },
  };
}

/** Every lease, by key. */
export async function listLeases(db: Queryable): Promise<LeaseRow[]> {
  const { rows } = await db.query<LeaseRow & { generation: string }>(
    'SELECT key, holder, generation::text AS generation, expires_at FROM skillgate.channel_leases ORDER BY key',
  );
  return rows.map((r) => ({ ...r, generation: Number(r.generation) }));
}
