/**
 * Taking over the work of a gateway process that died (docs/recovery.md). Work is held by
 * leases (`lease_owner`, `lease_until`) in the inbox and the outbox; a lease of a dead owner
 * is made due at once (`lease_until` set to the epoch), so the ordinary claim takes it at its
 * next look instead of waiting out the lease's time.
 *
 * - Embedded: only one process can own a data dir (src/store/datadir.ts), so at start every
 *   lease not held by this process belongs to a process that is gone.
 * - Server: each process beats in `skillgate.instances`; an instance silent for
 *   {@link TAKEOVER_MS} is dead, its leases are taken over and its row removed, in one statement.
 *
 * Database time (`now()`) is used for heartbeats so replicas with skewed clocks agree.
 */
import type { Queryable } from '../store/db.ts';

/** How often a server-engine process writes its heartbeat, ms. */
export const HEARTBEAT_MS = 5_000;
/** An instance whose heartbeat is older than this is dead and its work is taken over, ms. */
export const TAKEOVER_MS = 15_000;

/** What one takeover made due again. */
export interface TakenOver {
  inbox: number;
  outbox: number;
}

const EPOCH = '1970-01-01T00:00:00Z';

/**
 * Make due every inbox and outbox lease not held by `self` (embedded start: the data dir's
 * lock proves no other process holds one). One statement.
 */
export async function takeOverAll(q: Queryable, self: string): Promise<TakenOver> {
  const { rows } = await q.query<{ inbox: number; outbox: number }>(
    `WITH i AS (
       UPDATE skillgate.inbox_events SET lease_until = $2::timestamptz
        WHERE status = 'processing' AND lease_owner IS DISTINCT FROM $1 RETURNING 1
     ), o AS (
       UPDATE skillgate.outbox_messages SET lease_until = $2::timestamptz
        WHERE status = 'sending' AND lease_owner IS DISTINCT FROM $1 RETURNING 1
     )
     SELECT (SELECT count(*) FROM i)::int AS inbox, (SELECT count(*) FROM o)::int AS outbox`,
    [self, EPOCH],
  );
  return rows[0] ?? { inbox: 0, outbox: 0 };
}

/**
 * Write `self`'s heartbeat and take over the work of instances silent for `takeoverMs` (their
 * rows are removed). One statement. Leases of owners that never registered (tools that run
 * an inbox of their own) are left to expire as before.
 */
export async function beatAndTakeOver(
  q: Queryable,
  self: { id: string; hostKey: string | null; pid: number },
  opts: { takeoverMs?: number; knownDead?: string[] } = {},
): Promise<TakenOver & { dead: string[] }> {
  const { rows } = await q.query<{ inbox: number; outbox: number; dead: string[] }>(
    `WITH beat AS (
       INSERT INTO skillgate.instances (id, host_key, pid) VALUES ($1, $5, $6)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()
       RETURNING id
     ), dead AS (
       DELETE FROM skillgate.instances
        WHERE id <> $1 AND (heartbeat_at < now() - make_interval(secs => $2::double precision / 1000) OR id = ANY($4::text[]))
       RETURNING id
     ), i AS (
       UPDATE skillgate.inbox_events SET lease_until = $3::timestamptz
        WHERE status = 'processing' AND lease_owner IN (SELECT id FROM dead) RETURNING 1
     ), o AS (
       UPDATE skillgate.outbox_messages SET lease_until = $3::timestamptz
        WHERE status = 'sending' AND lease_owner IN (SELECT id FROM dead) RETURNING 1
     )
     SELECT (SELECT count(*) FROM i)::int AS inbox, (SELECT count(*) FROM o)::int AS outbox,
            COALESCE((SELECT array_agg(id) FROM dead), '{}') AS dead,
            (SELECT count(*) FROM beat)::int AS beats`,
    [self.id, opts.takeoverMs ?? TAKEOVER_MS, EPOCH, opts.knownDead ?? [], self.hostKey, self.pid],
  );
  const r = rows[0];
  return { inbox: r?.inbox ?? 0, outbox: r?.outbox ?? 0, dead: r?.dead ?? [] };
}

/** Instances registered with `hostKey` other than `self` (candidates for a local liveness check). */
export async function sameHostInstances(q: Queryable, self: string, hostKey: string): Promise<{ id: string; pid: number }[]> {
  const { rows } = await q.query<{ id: string; pid: number }>(
    'SELECT id, pid FROM skillgate.instances WHERE host_key = $1 AND id <> $2 AND pid IS NOT NULL',
    [hostKey, self],
  );
  return rows;
}

/**
 * A stopping process leaves: its heartbeat row is removed and whatever it still holds (turns
 * a bounded stop abandoned) is made due for the other replicas at once. One statement.
 */
export async function leave(q: Queryable, self: string): Promise<void> {
  await q.query(
    `WITH gone AS (DELETE FROM skillgate.instances WHERE id = $1 RETURNING id),
          i AS (UPDATE skillgate.inbox_events SET lease_until = $2::timestamptz WHERE status = 'processing' AND lease_owner = $1 RETURNING 1),
          o AS (UPDATE skillgate.outbox_messages SET lease_until = $2::timestamptz WHERE status = 'sending' AND lease_owner = $1 RETURNING 1)
     SELECT (SELECT count(*) FROM gone) + (SELECT count(*) FROM i) + (SELECT count(*) FROM o) AS n`,
    [self, EPOCH],
  );
}
