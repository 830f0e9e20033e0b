/**
 * The gateway's side of confirmations (README.md "Start"): a tool result that
 * carries `confirm_token` is remembered with the call that produced it; when the user
 * confirms — a button (callback with the token) or a 「确认」 reply — the gateway re-invokes
 * the same skill with the same parameters plus the token. The skill's own check (the one
 * confirmation service, `confirm-tokens.ts`) decides whether the token is still valid; this
 * module never judges a token, it only finds the call it belongs to.
 */
import { createHash } from 'node:crypto';
import { decryptSecret, encryptSecret } from '../runtime/crypto.ts';
import type { Queryable } from '../store/db.ts';
import { CONFIRM_TTL_MS } from './confirm-tokens.ts';

/** A remembered confirmation request. */
export interface PendingConfirm {
  /** `confirm`: re-invoked with its token; `retry`: a call a restart interrupted, re-invoked as it was (docs/recovery.md). */
  kind: ConfirmKind;
  tool: string;
  args: Record<string, unknown>;
  token: string;
  prompt: string;
  expiresAt: Date;
}

/** What a remembered request re-invokes on 「确认」. */
export type ConfirmKind = 'confirm' | 'retry';

function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const AAD = 'turn_confirms';

/**
 * Remember that `token` (from `tool`'s result) waits for `actorKey`'s answer in `sessionId`.
 * `args` are stored without `confirm_token`; the token itself AES-256-GCM encrypted.
 * Expiry: `expiresInS` from the result, else 5 min. Idempotent per token.
 * @returns the expiry time. @throws the database error.
 */
export async function rememberConfirm(
  q: Queryable,
  secretKey: Buffer,
  r: {
    sessionId: string;
    actorKey: string;
    tool: string;
    args: Record<string, unknown>;
    token: string;
    prompt: string;
    expiresInS?: number;
    now: Date;
    kind?: ConfirmKind;
  },
): Promise<Date> {
  const args = { ...r.args };
  delete args.confirm_token;
  const ttl = r.expiresInS && r.expiresInS > 0 ? r.expiresInS * 1000 : CONFIRM_TTL_MS;
  const expiresAt = new Date(r.now.getTime() + ttl);
  await q.query(
    `INSERT INTO skillgate.turn_confirms (token_hash, session_id, actor_key, tool, args, token_enc, prompt, created_at, expires_at, kind)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8::timestamptz, $9::timestamptz, $10)
     ON CONFLICT (token_hash) DO NOTHING`,
    [
      hashToken(r.token),
      r.sessionId,
      r.actorKey,
      r.tool,
      JSON.stringify(args),
      encryptSecret(secretKey, r.token, AAD),
      r.prompt,
      r.now.toISOString(),
      expiresAt.toISOString(),
      r.kind ?? 'confirm',
    ],
  );
  return expiresAt;
}

interface Row {
  kind: string | null;
  tool: string;
  args: unknown;
  token_enc: string | null;
  prompt: string;
  expires_at: Date | string;
}

function toPending(secretKey: Buffer, row: Row): PendingConfirm | null {
  if (!row.token_enc) return null;
  let token: string;
  try {
    token = decryptSecret(secretKey, row.token_enc, AAD);
  } catch {
    // written under another secret key (a replica misconfigured, or the key was rotated):
    // the request cannot be answered; the user is told there is nothing to confirm
    return null;
  }
  const args = typeof row.args === 'string' ? (JSON.parse(row.args) as Record<string, unknown>) : (row.args as Record<string, unknown>);
  return {
    kind: row.kind === 'retry' ? 'retry' : 'confirm',
    tool: row.tool,
    args: args ?? {},
    token,
    prompt: row.prompt,
    expiresAt: new Date(row.expires_at),
  };
}

const RESOLVE = `UPDATE skillgate.turn_confirms c
    SET resolved_at = $R_NOW::timestamptz, resolution = $R_RES, token_enc = NULL
   FROM (SELECT token_hash, token_enc AS old_enc FROM skillgate.turn_confirms WHERE $WHERE FOR UPDATE) o
  WHERE c.token_hash = o.token_hash
  RETURNING c.kind, c.tool, c.args, o.old_enc AS token_enc, c.prompt, c.expires_at`;

/**
 * Take the open request of `token` for this session and actor (marks it resolved, so a
 * second press does nothing). Null when unknown, already resolved, or another session's /
 * actor's (a token pressed by someone else is not theirs to confirm).
 * @throws the database error.
 */
export async function takeConfirmByToken(
  q: Queryable,
  secretKey: Buffer,
  r: { sessionId: string; actorKey: string; token: string; resolution: 'confirmed' | 'cancelled'; now: Date },
): Promise<PendingConfirm | null> {
  const sql = RESOLVE.replace('$WHERE', () => 'token_hash = $1 AND session_id = $2 AND actor_key = $3 AND resolved_at IS NULL')
    .replace('$R_NOW', () => '$4')
    .replace('$R_RES', () => '$5');
  const { rows } = await q.query<Row>(sql, [hashToken(r.token), r.sessionId, r.actorKey, r.now.toISOString(), r.resolution]);
  return rows[0] ? toPending(secretKey, rows[0]) : null;
}

/**
 * Take the newest open, unexpired request of this session and actor (a 「确认」 / 「取消」 text
 * reply). Null when there is none. @throws the database error.
 */
export async function takeLatestConfirm(
  q: Queryable,
  secretKey: Buffer,
  r: { sessionId: string; actorKey: string; resolution: 'confirmed' | 'cancelled'; now: Date },
): Promise<PendingConfirm | null> {
  const sql = RESOLVE.replace(
    '$WHERE',
    () => `token_hash = (SELECT token_hash FROM skillgate.turn_confirms
                    WHERE session_id = $1 AND actor_key = $2 AND resolved_at IS NULL AND expires_at > $3::timestamptz
                    ORDER BY created_at DESC LIMIT 1)`,
  )
    .replace('$R_NOW', () => '$3')
    .replace('$R_RES', () => '$4');
  const { rows } = await q.query<Row>(sql, [r.sessionId, r.actorKey, r.now.toISOString(), r.resolution]);
  return rows[0] ? toPending(secretKey, rows[0]) : null;
}
