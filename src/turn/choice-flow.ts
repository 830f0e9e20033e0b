/**
 * The gateway's side of questions with choices (docs/messaging.md "Questions with choices"): a
 * tool result that asks a question (src/turn/reply/question.ts) is remembered with the call
 * that produced it under a fresh token (`skillgate.turn_choices`, migration 0031; SHA-256
 * only). The person's pick — a button (callback `<n>:<token>`) or a text reply naming an
 * option — takes the record once and the call is made again with the chosen value.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../store/db.ts';
import type { ToolInvocation } from './planner.ts';
import { questionOf, type ChoiceOption } from './reply/question.ts';
import type { Lang } from './reply/text.ts';

/** How long a question waits for its answer: 30 minutes. */
export const CHOICE_TTL_MS = 30 * 60 * 1000;

/** Prefix of choice tokens (tells a choice button from a confirmation button). */
export const CHOICE_TOKEN_PREFIX = 'ch_';

/** A remembered question. */
export interface PendingChoice {
  tool: string;
  args: Record<string, unknown>;
  param: string;
  options: ChoiceOption[];
  /** `pending_reply`: the call answered a waiting reply (src/orchestration/pending-replies.ts). */
  via: 'call' | 'pending_reply';
}

/** A question shown in a reply: its token and expiry, by invocation index. */
export type AskedChoices = Map<number, { token: string; expiresAt: Date }>;

function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Is this a choice button's token? */
export function isChoiceToken(token: string | null | undefined): token is string {
  return typeof token === 'string' && token.startsWith(CHOICE_TOKEN_PREFIX);
}

/**
 * Remember every question among `invocations` for `actorKey` in `sessionId` under a fresh
 * token. @returns the tokens by invocation index. @throws the database error.
 */
export async function rememberChoices(
  q: Queryable,
  r: { sessionId: string; actorKey: string; invocations: readonly ToolInvocation[]; lang: Lang; now: Date },
): Promise<AskedChoices> {
  const out: AskedChoices = new Map();
  for (const [i, inv] of r.invocations.entries()) {
    const question = questionOf(inv.envelope, r.lang);
    if (!question) continue;
    const token = CHOICE_TOKEN_PREFIX + randomBytes(16).toString('base64url');
    const expiresAt = new Date(r.now.getTime() + CHOICE_TTL_MS);
    await q.query(
      `INSERT INTO skillgate.turn_choices (token_hash, session_id, actor_key, tool, args, param, options, via, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb, $8, $9::timestamptz, $10::timestamptz)`,
      [
        hashToken(token),
        r.sessionId,
        r.actorKey,
        inv.tool,
        JSON.stringify(inv.args),
        question.param,
        JSON.stringify(question.options),
        inv.via ?? 'call',
        r.now.toISOString(),
        expiresAt.toISOString(),
      ],
    );
    out.set(i, { token, expiresAt });
  }
  return out;
}

interface Row {
  tool: string;
  args: unknown;
  param: string;
  options: unknown;
  via: string;
}

function json<T>(v: unknown): T {
  return (typeof v === 'string' ? JSON.parse(v) : v) as T;
}

function toPending(row: Row): PendingChoice {
  return {
    tool: row.tool,
    args: json<Record<string, unknown>>(row.args) ?? {},
    param: row.param,
    options: json<ChoiceOption[]>(row.options) ?? [],
    via: row.via === 'pending_reply' ? 'pending_reply' : 'call',
  };
}

const OPEN = 'session_id = $1 AND actor_key = $2 AND resolved_at IS NULL AND expires_at > $3::timestamptz';

/**
 * Take the open, unexpired question of `token` for this session and actor (single use: a second
 * press finds nothing). Null when unknown, answered, expired, or someone else's.
 * @throws the database error.
 */
export async function takeChoiceByToken(
  q: Queryable,
  r: { sessionId: string; actorKey: string; token: string; now: Date },
): Promise<PendingChoice | null> {
  const { rows } = await q.query<Row>(
    `UPDATE skillgate.turn_choices SET resolved_at = $3::timestamptz, resolution = 'chosen'
      WHERE token_hash = $4 AND ${OPEN}
      RETURNING tool, args, param, options, via`,
    [r.sessionId, r.actorKey, r.now.toISOString(), hashToken(r.token)],
  );
  return rows[0] ? toPending(rows[0]) : null;
}

/** The newest open, unexpired question of this session and actor, without taking it. */
export async function latestChoice(
  q: Queryable,
  r: { sessionId: string; actorKey: string; now: Date },
): Promise<(PendingChoice & { id: string }) | null> {
  const { rows } = await q.query<Row & { token_hash: string }>(
    `SELECT token_hash, tool, args, param, options, via FROM skillgate.turn_choices
      WHERE ${OPEN} ORDER BY created_at DESC LIMIT 1`,
    [r.sessionId, r.actorKey, r.now.toISOString()],
  );
  return rows[0] ? { ...toPending(rows[0]), id: rows[0].token_hash } : null;
}

/**
 * Resolve the question {@link latestChoice} returned (`chosen` by a text reply, or `cancelled`).
 * @returns false when another message took it first.
 */
export async function resolveChoice(q: Queryable, id: string, resolution: 'chosen' | 'cancelled', now: Date): Promise<boolean> {
  const res = await q.query(
    `UPDATE skillgate.turn_choices SET resolved_at = $2::timestamptz, resolution = $3 WHERE token_hash = $1 AND resolved_at IS NULL`,
    [id, now.toISOString(), resolution],
  );
  return res.rowCount > 0;
}
