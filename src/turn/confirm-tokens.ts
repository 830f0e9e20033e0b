/**
 * The one confirmation service (docs/messaging.md; R-DT-87/88, A-29).
 *
 * A destructive call that needs the user's confirmation gets a token bound to org, role,
 * session, the actor asked, skill, action, table and a hash of the call's parameters
 * without the token. Presenting the token again with the same binding consumes it
 * (single use); a token presented with different parameters (or another binding) is
 * refused and **not** consumed; a token older than 5 minutes is refused. Tokens live in
 * `skillgate.confirm_tokens` (migration 0005), stored as SHA-256 only, so any replica can
 * check them. Every time is taken from an injectable clock (`now`), never from the
 * database, so expiry is testable.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../store/db.ts';

/** Token lifetime: 5 minutes, in milliseconds. */
export const CONFIRM_TTL_MS = 5 * 60 * 1000;

/** Parameter keys never part of the parameter hash (the token itself). */
export const TOKEN_PARAM_KEYS: readonly string[] = ['confirm_token'];

/** What a token is bound to. `params` is hashed by {@link hashParams}. */
export interface ConfirmBinding {
  orgId: string;
  roleId: string;
  sessionId: string;
  /** Who was asked (actor_key; "" when unknown). */
  actorKey: string;
  /** The skill's registered name (e.g. `datatable`). */
  skill: string;
  /** The canonical action (e.g. `delete_by`). */
  action: string;
  /** The table the call touches ("" when none). */
  table: string;
  /** The call's parameters; top-level `confirm_token` is ignored. */
  params: unknown;
}

/** Options shared by the service's functions. */
export interface ConfirmClock {
  /** Injectable clock (default `() => new Date()`). */
  now?: () => Date;
}

/** A freshly issued token. */
export interface IssuedToken {
  /** `ct_` + 32 base64url characters (192 random bits). */
  token: string;
  expiresAt: Date;
  /** Seconds until expiry (300). */
  expiresInS: number;
}

/** Why a presented token was refused. */
export type RedeemRefusal = 'unknown' | 'expired' | 'consumed' | 'mismatch';

/** The outcome of {@link redeemConfirmToken}. */
export type RedeemResult =
  | { ok: true }
  | {
      ok: false;
      reason: RedeemRefusal;
      /** For `mismatch`: the binding parts that differ (`params`, `action`, `table`, …). */
      mismatched?: string[];
    };

/**
 * Canonical JSON of `v`: object keys sorted (recursively), `undefined` members dropped,
 * arrays in order. Used for parameter hashes, so key order never matters.
 */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonicalJson(x))).join(',')}]`;
  const keys = Object.keys(v as Record<string, unknown>)
    .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
}

/**
 * Hex SHA-256 of the canonical JSON of `params` without the token keys
 * ({@link TOKEN_PARAM_KEYS}, top level only). A-29: "hash of parameters without the token".
 */
export function hashParams(params: unknown): string {
  let p = params;
  if (p && typeof p === 'object' && !Array.isArray(p)) {
    const copy: Record<string, unknown> = { ...(p as Record<string, unknown>) };
    for (const k of TOKEN_PARAM_KEYS) delete copy[k];
    p = copy;
  }
  return createHash('sha256').update(canonicalJson(p)).digest('hex');
}

function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Issue a token for `binding`, valid {@link CONFIRM_TTL_MS} from `now()`.
 * `call` (the original call, JSON) and `summary` (what is being confirmed, user-facing)
 * are stored for a gateway that re-invokes the skill on the user's confirmation.
 * Expired tokens older than one day are purged on the way.
 * @throws the database error when the insert fails.
 */
export async function issueConfirmToken(
  q: Queryable,
  binding: ConfirmBinding,
  opts: ConfirmClock & { ttlMs?: number; call?: unknown; summary?: string } = {},
): Promise<IssuedToken> {
  const now = (opts.now ?? (() => new Date()))();
  const ttl = opts.ttlMs ?? CONFIRM_TTL_MS;
  const token = `ct_${randomBytes(24).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + ttl);
  await q.query('DELETE FROM skillgate.confirm_tokens WHERE expires_at < $1::timestamptz', [
    new Date(now.getTime() - 86_400_000).toISOString(),
  ]);
  await q.query(
    `INSERT INTO skillgate.confirm_tokens
       (token_hash, org_id, role_id, session_id, actor_key, skill, action, table_ref, params_hash, call, summary, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12::timestamptz, $13::timestamptz)`,
    [
      tokenHash(token),
      binding.orgId,
      binding.roleId,
      binding.sessionId,
      binding.actorKey,
      binding.skill,
      binding.action,
      binding.table,
      hashParams(binding.params),
      opts.call === undefined ? null : JSON.stringify(opts.call),
      opts.summary ?? '',
      now.toISOString(),
      expiresAt.toISOString(),
    ],
  );
  return { token, expiresAt, expiresInS: Math.round(ttl / 1000) };
}

interface TokenRow {
  org_id: string;
  role_id: string;
  session_id: string;
  actor_key: string;
  skill: string;
  action: string;
  table_ref: string;
  params_hash: string;
  consumed: boolean;
  expired: boolean;
}

/**
 * Check `token` against `binding` and consume it when everything matches.
 *
 * Order: unknown token → `unknown`; already used → `consumed`; `now() >= expires_at` →
 * `expired`; any binding part or the parameter hash differs → `mismatch` (the token stays
 * usable for its own call); else the token is marked consumed — atomically
 * (`… AND consumed_at IS NULL`), so two concurrent redemptions never both succeed. Run it
 * inside the transaction of the confirmed operation, so a failed operation rolls the
 * consumption back.
 * @throws the database error when a statement fails.
 */
export async function redeemConfirmToken(
  q: Queryable,
  token: string,
  binding: ConfirmBinding,
  opts: ConfirmClock = {},
): Promise<RedeemResult> {
  const now = (opts.now ?? (() => new Date()))();
  const h = tokenHash(String(token));
  const { rows } = await q.query<TokenRow>(
    `SELECT org_id, role_id, session_id, actor_key, skill, action, table_ref, params_hash,
            consumed_at IS NOT NULL AS consumed, expires_at <= $2::timestamptz AS expired
       FROM skillgate.confirm_tokens WHERE token_hash = $1`,
    [h, now.toISOString()],
  );
  const row = rows[0];
  if (!row) return { ok: false, reason: 'unknown' };
  if (row.consumed) return { ok: false, reason: 'consumed' };
  if (row.expired) return { ok: false, reason: 'expired' };
  const mismatched: string[] = [];
  const pairs: Array<[string, string, string]> = [
    ['org_id', row.org_id, binding.orgId],
    ['role_id', row.role_id, binding.roleId],
    ['session_id', row.session_id, binding.sessionId],
    ['actor_key', row.actor_key, binding.actorKey],
    ['skill', row.skill, binding.skill],
    ['action', row.action, binding.action],
    ['table', row.table_ref, binding.table],
  ];
  for (const [name, stored, given] of pairs) if (stored !== given) mismatched.push(name);
  if (!sameHex(row.params_hash, hashParams(binding.params))) mismatched.push('params');
  if (mismatched.length > 0) return { ok: false, reason: 'mismatch', mismatched };
  const upd = await q.query(
    'UPDATE skillgate.confirm_tokens SET consumed_at = $2::timestamptz WHERE token_hash = $1 AND consumed_at IS NULL AND expires_at > $2::timestamptz',
    [h, now.toISOString()],
  );
  return upd.rowCount === 1 ? { ok: true } : { ok: false, reason: 'consumed' };
}

/** A stored token as the gateway's confirm flow reads it (no secret in it). */
export interface PendingConfirmation extends Omit<ConfirmBinding, 'params'> {
  call: unknown;
  summary: string;
  expiresAt: Date;
  consumed: boolean;
}

/**
 * Read what `token` was issued for (for the gateway's confirm button / 「确认」 reply, which
 * re-invokes the skill with the stored `call`); null for an unknown token. Does not consume.
 */
export async function peekConfirmToken(q: Queryable, token: string): Promise<PendingConfirmation | null> {
  const { rows } = await q.query<{
    org_id: string;
    role_id: string;
    session_id: string;
    actor_key: string;
    skill: string;
    action: string;
    table_ref: string;
    call: unknown;
    summary: string;
    expires_at: Date | string;
    consumed: boolean;
  }>(
    `SELECT org_id, role_id, session_id, actor_key, skill, action, table_ref, call, summary, expires_at,
            consumed_at IS NOT NULL AS consumed
       FROM skillgate.confirm_tokens WHERE token_hash = $1`,
    [tokenHash(String(token))],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    orgId: r.org_id,
    roleId: r.role_id,
    sessionId: r.session_id,
    actorKey: r.actor_key,
    skill: r.skill,
    action: r.action,
    table: r.table_ref,
    call: typeof r.call === 'string' ? (JSON.parse(r.call) as unknown) : r.call,
    summary: r.summary,
    expiresAt: r.expires_at instanceof Date ? r.expires_at : new Date(r.expires_at),
    consumed: r.consumed,
  };
}
