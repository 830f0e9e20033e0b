/**
 * The outbox's failed deliveries for the operators' console "the outbox's failed
 * deliveries (retry, discard)"; docs/console.md "Failed deliveries"). Only new statements:
 * delivery itself stays in outbox.ts/store.ts.
 *
 * - retry: a `failed` row goes back to `queued`, attempts reset to 0, due now, and the delivery
 *   loops are woken (NOTIFY `skillgate_outbox`); the platform's last error stays on the row
 *   until a later attempt overwrites it; `parts_done` stays too, so a message that failed
 *   mid-way resumes after the parts already delivered (src/channel/parts.ts).
 * - discard: a `failed` row becomes `discarded` (migration 0016) — kept for the record, never
 *   sent again. Neither touches a row in any other state.
 */
import type { Db, Queryable } from '../store/db.ts';
import { OUTBOX_CHANNEL } from './outbox.ts';
import type { OutboxStatus } from './types.ts';

/** Row states including the console's `discarded`. */
export type OutboxAdminStatus = OutboxStatus | 'discarded';

/** One failed (or discarded) delivery as the console lists it. */
export interface FailedDelivery {
  /** Row id (bigint as a decimal string). */
  id: string;
  channel: string;
  account: string;
  chat_key: string;
  status: OutboxAdminStatus;
  attempts: number;
  /** The platform's error text and code of the last attempt. */
  last_error: string | null;
  error_code: string | null;
  /** `pending`: the last send's outcome is unknown, it may have reached the user (docs/operations-delivery.md "Unknown outcomes"). */
  ambiguity: string | null;
  /** The message text, at most 200 characters (`…` appended when cut). */
  preview: string;
  created_at: string;
}

/** Largest page of {@link listFailedDeliveries}. */
export const FAILED_PAGE_MAX = 200;

/**
 * Rows in `status` (default `failed`), newest first; `beforeId` pages on (ids below it).
 * @param opts.limit rows per page (default 50, at most {@link FAILED_PAGE_MAX}).
 * @throws the database error.
 */
export async function listFailedDeliveries(
  q: Queryable,
  opts: { status?: 'failed' | 'discarded'; limit?: number; beforeId?: string } = {},
): Promise<FailedDelivery[]> {
  const limit = Math.min(FAILED_PAGE_MAX, Math.max(1, Math.floor(opts.limit ?? 50)));
  const before = opts.beforeId && /^\d{1,19}$/.test(opts.beforeId) ? opts.beforeId : null;
  const { rows } = await q.query<Omit<FailedDelivery, 'preview' | 'created_at'> & { text: string | null; created_at: Date }>(
    `SELECT id::text AS id, channel, account, chat_key, status, attempts, last_error, error_code, ambiguity,
            message->>'text' AS text, created_at
       FROM skillgate.outbox_messages
      WHERE status = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
      ORDER BY id DESC LIMIT $3`,
    [opts.status ?? 'failed', before, limit],
  );
  return rows.map(({ text, created_at, ...r }) => ({
    ...r,
    preview: text === null ? '' : text.length > 200 ? text.slice(0, 200) + '…' : text,
    created_at: new Date(created_at).toISOString(),
  }));
}

/** Number of rows per status (the console's header line). */
export async function countByStatus(q: Queryable): Promise<Record<string, number>> {
  const { rows } = await q.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM skillgate.outbox_messages GROUP BY status`,
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/**
 * Put a failed row back in the queue: `queued`, attempts 0, due at `nowMs`; then wake every
 * delivery loop. @returns false when no `failed` row has this id. @throws the database error.
 */
export async function retryFailedDelivery(db: Db, id: string, nowMs: number = Date.now()): Promise<boolean> {
  if (!/^\d{1,19}$/.test(id)) return false;
  const res = await db.query(
    `UPDATE skillgate.outbox_messages
        SET status = 'queued', attempts = 0, next_attempt_at = $2::timestamptz, lease_owner = NULL, lease_until = NULL
      WHERE id = $1::bigint AND status = 'failed'`,
    [id, new Date(nowMs).toISOString()],
  );
  if (res.rowCount === 0) return false;
  await db.notify(OUTBOX_CHANNEL, id).catch(() => undefined); // the poll picks it up anyway
  return true;
}

/** Mark a failed row `discarded`. @returns false when no `failed` row has this id. @throws the database error. */
export async function discardFailedDelivery(q: Queryable, id: string): Promise<boolean> {
  if (!/^\d{1,19}$/.test(id)) return false;
  const res = await q.query(`UPDATE skillgate.outbox_messages SET status = 'discarded' WHERE id = $1::bigint AND status = 'failed'`, [id]);
  return res.rowCount > 0;
}
