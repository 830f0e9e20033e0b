/**
 * Button payloads that exceed a platform's limit ("button payloads within the
 * platform's limit, long ones mapped to short ids stored in the database"). Telegram's
 * `callback_data` is 1-64 bytes (https://core.telegram.org/bots/api#inlinekeyboardbutton); a
 * confirm button carries `confirm:<token>` and tokens may be longer.
 *
 * {@link CallbackPayloads.encode} returns the payload itself when it fits, else a reference
 * `~<22 base64url chars>` (23 bytes, 128 random bits) and stores the payload in
 * `skillgate.callback_payloads` (migration 0010) until `expiresAt`. Only SHA-256(reference) is
 * stored and the payload is AES-256-GCM encrypted under a key derived from the reference, so the
 * table alone never reveals a live token. {@link CallbackPayloads.decode} maps a pressed
 * button's data back. A payload that itself starts with `~` is always stored, so decoding is
 * unambiguous.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../store/db.ts';

/** First character of a stored reference. */
export const CALLBACK_REF_PREFIX = '~';

const REF_RE = /^~[A-Za-z0-9_-]{22}$/;

/** The long-payload store of one channel account. */
export interface CallbackPayloads {
  /**
   * `data` itself when it fits `limitBytes` (UTF-8) and does not start with `~`; else a stored
   * reference (≤ 23 bytes) valid until `expiresAt`.
   * @throws RangeError when `limitBytes` < 23 and the payload does not fit; the database error when it could not be stored
   */
  encode(data: string, opts: { limitBytes: number; expiresAt: Date }): Promise<string>;
  /**
   * The original payload of a pressed button: `data` itself when it is not a reference; the
   * stored payload for a known, unexpired reference of this channel account; else null.
   */
  decode(data: string): Promise<string | null>;
  /** Delete expired rows; returns how many. */
  purgeExpired(): Promise<number>;
}

function refHash(ref: string): string {
  return createHash('sha256').update(`skillgate-callback-ref:${ref}`).digest('hex');
}

function refKey(ref: string): Buffer {
  return createHash('sha256').update(`skillgate-callback-key:${ref}`).digest();
}

function seal(ref: string, plain: string): Buffer {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', refKey(ref), iv);
  const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), ct]);
}

function open(ref: string, sealed: Buffer): string | null {
  try {
    const d = createDecipheriv('aes-256-gcm', refKey(ref), sealed.subarray(0, 12));
    d.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([d.update(sealed.subarray(28)), d.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/**
 * The store for `channel`/`account` over `db` (migration 0010 applied).
 * @param now the application clock (tests inject one; expiry uses it, not the database's now()).
 */
export function createCallbackPayloads(
  db: Queryable,
  channel: string,
  account: string,
  now: () => Date = () => new Date(),
): CallbackPayloads {
  return {
    async encode(data, { limitBytes, expiresAt }) {
      if (!data.startsWith(CALLBACK_REF_PREFIX) && Buffer.byteLength(data, 'utf8') <= limitBytes) return data;
      const ref = CALLBACK_REF_PREFIX + randomBytes(16).toString('base64url');
      if (Buffer.byteLength(ref) > limitBytes)
        throw new RangeError(`a button payload limit of ${limitBytes} bytes is too small for a reference`);
      await db.query(
        `INSERT INTO skillgate.callback_payloads (ref_hash, channel, account, payload_enc, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [refHash(ref), channel, account, seal(ref, data), now(), expiresAt],
      );
      return ref;
    },
    async decode(data) {
      if (!data.startsWith(CALLBACK_REF_PREFIX)) return data;
      if (!REF_RE.test(data)) return null;
      const { rows } = await db.query<{ payload_enc: Buffer | Uint8Array }>(
        `SELECT payload_enc FROM skillgate.callback_payloads
          WHERE ref_hash = $1 AND channel = $2 AND account = $3 AND expires_at > $4`,
        [refHash(data), channel, account, now()],
      );
      const row = rows[0];
      return row ? open(data, Buffer.from(row.payload_enc)) : null;
    },
    async purgeExpired() {
      const r = await db.query('DELETE FROM skillgate.callback_payloads WHERE expires_at <= $1', [now()]);
      return r.rowCount ?? 0;
    },
  };
}
