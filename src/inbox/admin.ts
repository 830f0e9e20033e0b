/**
 * Quarantined inbox events for the console and the CLI (docs/operations-delivery.md
 * "Quarantined events"). An event whose turn failed, or whose runs kept ending without a
 * result (a crash, a hang that outlived its lease), the inbox's `maxAttempts` times is left
 * `failed`: it no longer blocks its chat or a start, and stays stored until an operator acts.
 * Only new statements; taking and running events stays in inbox.ts / store.ts.
 *
 * - retry: `failed` → `received`, attempts 0, due now, workers woken (NOTIFY `skillgate_inbox`);
 * - discard: `failed` → `discarded` (migration 0024), kept for the record, never run.
 */
import type { Db, Queryable } from '../store/db.ts';
import { INBOX_CHANNEL } from './inbox.ts';

/** One quarantined (or discarded) event as the console lists it. */
export interface QuarantinedEvent {
  /** Row id (bigint as a decimal string). */
  id: string;
  channel: string;
  account: string;
  chat_key: string;
  status: 'failed' | 'discarded';
  attempts: number;
  /** The last run's error (`abandoned: …` when runs ended without a result). */
  error: string | null;
  /** The sender's platform id and the message text, at most 200 characters (`…` when cut). */
  sender: string;
  preview: string;
  received_at: string;
}

/** Largest page of {@link listQuarantined}. */
export const QUARANTINE_PAGE_MAX = 200;

const ID_RE = /^\d{1,19}$/;

/**
 * Events in `status` (default `failed`), newest first; `beforeId` pages on (ids below it).
 * @param opts.limit rows per page (default 50, at most {@link QUARANTINE_PAGE_MAX}). @throws the database error.
 */
export async function listQuarantined(
  q: Queryable,
  opts: { status?: 'failed' | 'discarded'; limit?: number; beforeId?: string } = {},
): Promise<QuarantinedEvent[]> {
  const limit = Math.min(QUARANTINE_PAGE_MAX, Math.max(1, Math.floor(opts.limit ?? 50)));
  const before = opts.beforeId && ID_RE.test(opts.beforeId) ? opts.beforeId : null;
  const { rows } = await q.query<
    Omit<QuarantinedEvent, 'preview' | 'received_at' | 'sender'> & { text: string | null; sender: string | null; received_at: Date }
  >(
    `SELECT id::text AS id, channel, account, chat_key, status, attempts, error,
            payload->'actor'->>'id' AS sender, payload->>'raw_input' AS text, received_at
       FROM skillgate.inbox_events
      WHERE status = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
      ORDER BY id DESC LIMIT $3`,
    [opts.status ?? 'failed', before, limit],
  );
  return rows.map(({ text, received_at, sender, ...r }) => ({
    ...r,
    sender: sender ?? '',
    preview: text === null ? '' : text.length > 200 ? text.slice(0, 200) + '…' : text,
    received_at: new Date(received_at).toISOString(),
  }));
}

/** Number of events per status. @throws the database error. */
export async function countInboxByStatus(q: Queryable): Promise<Record<string, number>> {
  const { rows } = await q.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM skillgate.inbox_events GROUP BY status`,
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/**
 * Run a quarantined event again: `received`, attempts 0, due at `nowMs`; then wake the
 * workers. @returns false when no `failed` event has this id. @throws the database error.
 */
export async function retryQuarantined(db: Db, id: string, nowMs: number = Date.now()): Promise<boolean> {
  if (!ID_RE.test(id)) return false;
  const res = await db.query(
    `UPDATE skillgate.inbox_events
        SET status = 'received', attempts = 0, next_attempt_at = $2::timestamptz, processed_at = NULL,
            lease_owner = NULL, lease_until = NULL
      WHERE id = $1::bigint AND status = 'failed'`,
    [id, new Date(nowMs).toISOString()],
  );
  if (res.rowCount === 0) return false;
  await db.notify(INBOX_CHANNEL, id).catch(() => undefined); // the poll picks it up anyway
  return true;
}

/** Mark a quarantined event `discarded`. @returns false when no `failed` event has this id. @throws the database error. */
export async function discardQuarantined(q: Queryable, id: string): Promise<boolean> {
  if (!ID_RE.test(id)) return false;
  const res = await q.query(`UPDATE skillgate.inbox_events SET status = 'discarded' WHERE id = $1::bigint AND status = 'failed'`, [id]);
  return res.rowCount > 0;
}
