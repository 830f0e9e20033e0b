/**
 * Per-sender flood control (docs/operations-delivery.md "Per-sender flood control"): more
 * than `perMinute` messages from one person (channel, account, sender id) within a minute are
 * stored `refused` — so a redelivery stays a duplicate — and never reach a turn; the first
 * refusal of a minute gets one polite notice. Button presses and edits are not counted.
 */
import type { InboundMessage, Lang } from '../channel/types.ts';
import type { Queryable } from '../store/db.ts';

/** The flood window, ms. */
export const FLOOD_WINDOW_MS = 60_000;

/** Default limit (`SKILLGATE_FLOOD_PER_MINUTE`). */
export const FLOOD_DEFAULT_PER_MINUTE = 60;

/** Flood control of one inbox. */
export interface FloodControl {
  /** Messages per sender per minute accepted (0 = no limit). */
  perMinute: number;
  /**
   * Queue the notice answering `msg` (the first refused message of its sender's minute).
   * @throws when it could not be queued (the event is then not acknowledged).
   */
  notify(msg: InboundMessage, text: string): Promise<void>;
}

/**
 * `SKILLGATE_FLOOD_PER_MINUTE` (a whole number ≥ 0; 0 = off; default {@link FLOOD_DEFAULT_PER_MINUTE}).
 * @throws Error naming the variable when it is not a whole number ≥ 0
 */
export function floodLimitFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SKILLGATE_FLOOD_PER_MINUTE?.trim();
  if (raw === undefined || raw === '') return FLOOD_DEFAULT_PER_MINUTE;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`SKILLGATE_FLOOD_PER_MINUTE must be a whole number ≥ 0 (0 = no limit), got "${raw}"`);
  return n;
}

/** The polite notice in the sender's language. */
export function floodNotice(lang: Lang | undefined, perMinute: number): string {
  return lang === 'en'
    ? `You are sending messages faster than I can take them (at most ${perMinute} a minute). Please wait a moment; the messages of the last minute over that were not processed.`
    : `消息发送得太频繁了（每分钟最多 ${perMinute} 条），请稍等片刻再发。超出的消息没有被处理。`;
}

/** True when flood control applies to `msg` (a message with a sender). */
export function floodCounted(msg: InboundMessage): boolean {
  return msg.kind === 'message' && typeof msg.actor?.id === 'string' && msg.actor.id !== '';
}

/**
 * The sender's events in the window ending at `nowMs`: how many were taken (any status but
 * `refused`) and how many refused. @throws the database error.
 */
export async function senderWindow(q: Queryable, msg: InboundMessage, nowMs: number): Promise<{ taken: number; refused: number }> {
  const { rows } = await q.query<{ taken: number; refused: number }>(
    `SELECT count(*) FILTER (WHERE status <> 'refused')::int AS taken, count(*) FILTER (WHERE status = 'refused')::int AS refused
       FROM skillgate.inbox_events
      WHERE channel = $1 AND account = $2 AND (payload->'actor'->>'id') = $3 AND received_at > $4::timestamptz
        AND payload->>'kind' = 'message'`,
    [msg.channel, msg.account, msg.actor.id, new Date(nowMs - FLOOD_WINDOW_MS).toISOString()],
  );
  return rows[0] ?? { taken: 0, refused: 0 };
}

/**
 * Store `msg` as `refused` unless its (channel, account, dedupe_key) exists.
 * @returns true when stored, false for a duplicate. @throws the database error.
 */
export async function insertRefused(q: Queryable, msg: InboundMessage, chatKey: string, nowMs: number): Promise<boolean> {
  const at = new Date(nowMs).toISOString();
  const res = await q.query(
    `INSERT INTO skillgate.inbox_events
       (channel, account, dedupe_key, chat_key, payload, received_at, next_attempt_at, processed_at, status, error)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6::timestamptz, $6::timestamptz, $6::timestamptz, 'refused', 'over the per-sender message limit')
     ON CONFLICT (channel, account, dedupe_key) DO NOTHING`,
    [msg.channel, msg.account, msg.dedupe_key, chatKey, JSON.stringify(msg), at],
  );
  return res.rowCount > 0;
}
