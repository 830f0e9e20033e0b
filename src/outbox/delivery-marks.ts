/**
 * The outcome of a delivery attempt, recorded on its outbox row (table
 * `skillgate.outbox_messages`, src/outbox/store.ts): sent (alone or group-committed, with the
 * chat's flood-control step), failed for a retry, or the account paused after a 429
 * (docs/operations-delivery.md).
 */
import { processSecrets } from '../log/secret-values.ts';
import type { Queryable } from '../store/db.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The chat's flood-control step of a delivery (see {@link markSent}). */
export interface ChatPaceStep {
  chatKey: string;
  /** How far the chat's schedule moves: parts sent × the pace interval, ms. */
  stepMs: number;
  /** The burst tolerance: (burst − 1) × interval, ms. */
  toleranceMs: number;
}

/**
 * Record a delivery. `messageIds` are the ids of the parts this attempt sent; they are added to
 * those of earlier attempts that delivered some parts (`parts_done`), so the row lists them all.
 * With `pace`, the chat's flood-control schedule moves on in the same statement (GCRA:
 * tat = max(tat, now) + step; the chat's next message not before tat − tolerance).
 * @returns whether the lease was still ours, when the chat may be sent to next (ms; 0 when not
 *   paced), and whether an unfinished row of the chat waits behind this one (the statement's snapshot)
 */
export async function markSent(
  q: Queryable,
  id: string,
  owner: string,
  messageIds: string[],
  nowMs: number,
  pace?: ChatPaceStep,
  resolution: AmbiguityResolution | null = null,
): Promise<SentResult> {
  const n = pace ? 8 : 5;
  const update = `UPDATE skillgate.outbox_messages o
        SET status = 'sent', sent_at = $4::timestamptz,
            platform_message_ids = CASE WHEN o.parts_done > 0 THEN COALESCE(o.platform_message_ids, '[]'::jsonb) || $3::jsonb ELSE $3::jsonb END,
            ambiguity = CASE WHEN o.ambiguity = 'pending' THEN COALESCE($${n}::text, o.ambiguity) ELSE o.ambiguity END,
            lease_owner = NULL, lease_until = NULL
      WHERE o.id = $1::bigint AND o.lease_owner = $2 AND o.status = 'sending'
      RETURNING o.id, ${BEHIND} AS behind`;
  if (!pace) {
    const { rows } = await q.query<{ behind: boolean }>(update, [id, owner, JSON.stringify(messageIds), iso(nowMs), resolution]);
    return { ours: rows.length > 0, notBeforeMs: 0, behind: rows[0]?.behind === true };
  }
  const { rows } = await q.query<{ n: number; not_before: Date | null; behind: boolean | null }>(
    `WITH s AS (${update}),
          p AS (
            INSERT INTO skillgate.delivery_pace AS d (scope, key, tat, not_before)
            SELECT 'chat', $5, $4::timestamptz + $6 * interval '1 millisecond',
                   $4::timestamptz + ($6 - $7) * interval '1 millisecond'
              FROM s
            ON CONFLICT (scope, key) DO UPDATE
              SET tat = GREATEST(d.tat, $4::timestamptz) + $6 * interval '1 millisecond',
                  not_before = GREATEST(d.tat, $4::timestamptz) + ($6 - $7) * interval '1 millisecond'
            RETURNING not_before)
     SELECT (SELECT count(*)::int FROM s) AS n, (SELECT max(not_before) FROM p) AS not_before, (SELECT bool_or(behind) FROM s) AS behind`,
    [id, owner, JSON.stringify(messageIds), iso(nowMs), pace.chatKey, pace.stepMs, pace.toleranceMs, resolution],
  );
  const r = rows[0];
  return { ours: (r?.n ?? 0) > 0, notBeforeMs: r?.not_before ? new Date(r.not_before).getTime() : 0, behind: r?.behind === true };
}

/** SQL: an unfinished row of `o`'s chat waits behind `o` (in the statement's snapshot). */
const BEHIND = `EXISTS (SELECT 1 FROM skillgate.outbox_messages b
                  WHERE b.chat_key = o.chat_key AND b.id > o.id AND b.status IN ('queued', 'sending'))`;

/** What recording a delivery found (see {@link markSent}). */
export interface SentResult {
  /** The lease was still ours: the row is `sent` now. */
  ours: boolean;
  /** When the chat may be sent to next, ms (0 when not paced). */
  notBeforeMs: number;
  /** An unfinished row of the chat waits behind this one (the statement's snapshot). */
  behind: boolean;
}

/** One delivery to record (see {@link markSent}). */
export interface SentMark {
  id: string;
  owner: string;
  messageIds: string[];
  nowMs: number;
  pace?: ChatPaceStep;
  /** How a `pending` unknown outcome of this row ended (see {@link AmbiguityResolution}). */
  resolution?: AmbiguityResolution | null;
}

/**
 * How a resend after an unknown outcome kept the user from a silent duplicate (migration 0037):
 * under the platform's idempotency key, or with the visible marker.
 */
export type AmbiguityResolution = 'resolved_by_key' | 'resent_with_marker';

/**
 * {@link markSent} for many deliveries in one statement (the outbox's group commit). At most
 * one mark per paced chat (one message of a chat is in flight at a time; a second one of the
 * same chat goes in a statement of its own after the first).
 * @returns one result per mark, in order. @throws the database error (nothing recorded).
 */
export async function markSentMany(q: Queryable, marks: readonly SentMark[]): Promise<SentResult[]> {
  if (marks.length === 1) {
    const m = marks[0]!;
    return [await markSent(q, m.id, m.owner, m.messageIds, m.nowMs, m.pace, m.resolution ?? null)];
  }
  const seen = new Set<string>();
  const now: SentMark[] = [];
  const later: number[] = [];
  marks.forEach((m, i) => {
    if (m.pace && seen.has(m.pace.chatKey)) later.push(i);
    else {
      if (m.pace) seen.add(m.pace.chatKey);
      now.push(m);
    }
  });
  const { rows } = await q.query<{ id: string; ours: boolean; not_before: Date | null; behind: boolean | null }>(
    `WITH v AS (
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::jsonb[], $4::timestamptz[], $5::text[], $6::float8[], $7::float8[], $8::text[])
                  AS t(id, owner, ids, at, chat_key, step, tol, resolution)
     ), s AS (
       UPDATE skillgate.outbox_messages o
          SET status = 'sent', sent_at = v.at,
              platform_message_ids = CASE WHEN o.parts_done > 0 THEN COALESCE(o.platform_message_ids, '[]'::jsonb) || v.ids ELSE v.ids END,
              ambiguity = CASE WHEN o.ambiguity = 'pending' THEN COALESCE(v.resolution, o.ambiguity) ELSE o.ambiguity END,
              lease_owner = NULL, lease_until = NULL
         FROM v
        WHERE o.id = v.id AND o.lease_owner = v.owner AND o.status = 'sending'
        RETURNING o.id, ${BEHIND} AS behind
     ), p AS (
       -- The schedule read in the statement's snapshot: one message of a chat is sent at a time.
       INSERT INTO skillgate.delivery_pace AS d (scope, key, tat, not_before)
       SELECT 'chat', v.chat_key,
              GREATEST(COALESCE(o.tat, v.at), v.at) + v.step * interval '1 millisecond',
              GREATEST(COALESCE(o.tat, v.at), v.at) + (v.step - v.tol) * interval '1 millisecond'
         FROM v JOIN s ON s.id = v.id
         LEFT JOIN skillgate.delivery_pace o ON o.scope = 'chat' AND o.key = v.chat_key
        WHERE v.chat_key IS NOT NULL
       ON CONFLICT (scope, key) DO UPDATE SET tat = EXCLUDED.tat, not_before = EXCLUDED.not_before
       RETURNING key, not_before
     )
     SELECT v.id::text AS id, EXISTS (SELECT 1 FROM s WHERE s.id = v.id) AS ours,
            (SELECT max(p.not_before) FROM p WHERE p.key = v.chat_key) AS not_before,
            (SELECT s.behind FROM s WHERE s.id = v.id) AS behind
       FROM v`,
    [
      now.map((m) => m.id),
      now.map((m) => m.owner),
      now.map((m) => JSON.stringify(m.messageIds)),
      now.map((m) => iso(m.nowMs)),
      now.map((m) => m.pace?.chatKey ?? null),
      now.map((m) => m.pace?.stepMs ?? null),
      now.map((m) => m.pace?.toleranceMs ?? null),
      now.map((m) => m.resolution ?? null),
    ],
  );
  const byId = new Map(
    rows.map((r) => [r.id, { ours: r.ours, notBeforeMs: r.not_before ? new Date(r.not_before).getTime() : 0, behind: r.behind === true }]),
  );
  const out = marks.map((m) => byId.get(m.id));
  for (const i of later) out[i] = (await markSentMany(q, [marks[i]!]))[0];
  return out.map((r) => r ?? { ours: false, notBeforeMs: 0, behind: false });
}

/**
 * Store that the platform answered an account with 429: nothing of `key` (`<channel>:<account>`)
 * before `notBeforeMs` (the later of this and a stored pause wins), and the adaptive rate set
 * then (src/outbox/pacing.ts), for every replica.
 */
export async function recordAccountPause(
  q: Queryable,
  key: string,
  notBeforeMs: number,
  rate: { perSecond: number; sinceMs: number } | null,
): Promise<void> {
  await q.query(
    `INSERT INTO skillgate.delivery_pace AS d (scope, key, tat, not_before, rate_per_s, rate_since)
     VALUES ('account', $1, $2::timestamptz, $2::timestamptz, $3, $4::timestamptz)
     ON CONFLICT (scope, key) DO UPDATE
       SET not_before = GREATEST(d.not_before, EXCLUDED.not_before), tat = GREATEST(d.tat, EXCLUDED.tat),
           rate_per_s = EXCLUDED.rate_per_s, rate_since = EXCLUDED.rate_since`,
    [key, iso(notBeforeMs), rate?.perSecond ?? null, rate ? iso(rate.sinceMs) : null],
  );
}

/**
 * Record a failed attempt with the platform's error: `queued` again, due at `retryAtMs`, or
 * `failed` for good when `retryAtMs` is null. `progress` (a multi-part message that failed
 * mid-way, src/channel/parts.ts): the parts delivered so far, earlier attempts included, and
 * the ids this attempt produced — stored so the retry resumes after them. `ambiguity`: an
 * unknown outcome to mark, or how a pending one ended (docs/operations-delivery.md "Unknown outcomes").
 * @returns false when the lease was no longer ours
 */
export async function markAttemptFailed(
  q: Queryable,
  id: string,
  owner: string,
  error: string,
  code: string | null,
  retryAtMs: number | null,
  progress?: { partsDone: number; messageIds: string[] },
  ambiguity?: AttemptAmbiguity,
): Promise<boolean> {
  const res = await q.query(
    `UPDATE skillgate.outbox_messages
        SET status = CASE WHEN $5::timestamptz IS NULL THEN 'failed' ELSE 'queued' END,
            next_attempt_at = COALESCE($5::timestamptz, next_attempt_at),
            last_error = $3, error_code = $4, lease_owner = NULL, lease_until = NULL,
            ambiguity = CASE WHEN $8::int IS NOT NULL THEN 'pending'
                             WHEN ambiguity = 'pending' AND $9::text IS NOT NULL
                                  AND GREATEST(parts_done, COALESCE($6::int, 0)) > ambiguous_part THEN $9::text
                             ELSE ambiguity END,
            ambiguous_part = COALESCE($8::int, ambiguous_part),
            ambiguous_attempts = ambiguous_attempts + CASE WHEN $8::int IS NOT NULL THEN 1 ELSE 0 END,
            parts_done = GREATEST(parts_done, COALESCE($6::int, 0)),
            platform_message_ids = CASE WHEN $7::jsonb = '[]'::jsonb THEN platform_message_ids
                                        ELSE COALESCE(platform_message_ids, '[]'::jsonb) || $7::jsonb END
      WHERE id = $1::bigint AND lease_owner = $2 AND status = 'sending'`,
    [
      id,
      owner,
      processSecrets().scrub(error),
      code,
      retryAtMs === null ? null : iso(retryAtMs),
      progress?.partsDone ?? null,
      JSON.stringify(progress?.messageIds ?? []),
      ambiguity?.unknownPart ?? null,
      ambiguity?.resolution ?? null,
    ],
  );
  return res.rowCount > 0;
}

/** The unknown-outcome bookkeeping of a failed attempt (migration 0037). */
export interface AttemptAmbiguity {
  /** This attempt left part `unknownPart` unknown (it may have reached the platform): the row becomes `pending`. */
  unknownPart?: number | null;
  /** How a `pending` part ends when this attempt got past it (see {@link AmbiguityResolution}). */
  resolution?: AmbiguityResolution | null;
}
