/**
 * Once-only use of a signed request's (timestamp, signature) pair (migration 0019), for
 * signature schemes that do not cover the body (docs/adapter-authoring.md "Verify first"):
 * the pair is bound to the first body it arrived with until the replay window has passed, so a
 * captured pair cannot carry another body (another sender, another text). The platform's own
 * redelivery of the same bytes passes and is dropped by the inbox as a duplicate. One
 * `INSERT … ON CONFLICT DO UPDATE` decides, so replicas on one server agree.
 */
import { createHash } from 'node:crypto';
import type { Queryable } from '../store/db.ts';

/** The pairs one channel account has accepted. */
export interface ReplayGuard {
  /**
   * Bind `pair` to `body` until `expiresAtMs`. @returns true when the pair is new (or its
   * binding expired) or already bound to these exact bytes; false when it came with another
   * body before. @throws the database error.
   */
  claim(pair: string, body: Buffer, expiresAtMs: number): Promise<boolean>;
}

/** Purge expired rows once every this many claims. */
const PURGE_EVERY = 200;

const sha256 = (label: string, data: string | Buffer): string => createHash('sha256').update(label).update(data).digest('hex');

/** The guard of one channel account over `db`; `now` is the clock (ms). */
export function createReplayGuard(db: Queryable, channel: string, account: string, now: () => number): ReplayGuard {
  let claims = 0;
  return {
    async claim(pair, body, expiresAtMs) {
      const nowIso = new Date(now()).toISOString();
      if (++claims % PURGE_EVERY === 0)
        await db.query('DELETE FROM skillgate.webhook_replays WHERE expires_at <= $1::timestamptz', [nowIso]);
      const bodyHash = sha256('skillgate-webhook-body:', body);
      const { rows } = await db.query<{ ok: boolean }>(
        `INSERT INTO skillgate.webhook_replays AS r (channel, account, key_hash, body_hash, expires_at)
         VALUES ($1, $2, $3, $4, $5::timestamptz)
         ON CONFLICT (channel, account, key_hash) DO UPDATE SET
           body_hash = CASE WHEN r.expires_at <= $6::timestamptz THEN EXCLUDED.body_hash ELSE r.body_hash END,
           expires_at = CASE WHEN r.expires_at <= $6::timestamptz THEN EXCLUDED.expires_at ELSE r.expires_at END
         RETURNING r.body_hash = $4 AS ok`,
        [channel, account, sha256('skillgate-webhook-pair:', pair), bodyHash, new Date(expiresAtMs).toISOString(), nowIso],
      );
      return rows[0]?.ok === true;
    },
  };
}
