/** Long button payloads mapped to short stored references (migration 0010). */
import { expect, it } from 'vitest';
import { createCallbackPayloads } from '../../src/channel/callback-payloads.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';

describeEachEngine('callback payloads', (db) => {
  let t = new Date('2026-03-01T00:00:00Z').getTime();
  const now = (): Date => new Date(t);
  const store = () => createCallbackPayloads(db(), 'telegram', 'default', now);

  it('migrates', async () => {
    await migrate(db());
  });

  it('a payload within the limit is returned as is, nothing stored', async () => {
    expect(await store().encode('confirm:tok_short', { limitBytes: 64, expiresAt: new Date(t + 60_000) })).toBe('confirm:tok_short');
    const { rows } = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM skillgate.callback_payloads');
    expect(rows[0]!.n).toBe(0);
  });

  it('a 78-byte payload becomes a ≤64-byte reference that resolves back; the table holds neither', async () => {
    const long = `confirm:tok_${'x'.repeat(66)}`;
    const ref = await store().encode(long, { limitBytes: 64, expiresAt: new Date(t + 60_000) });
    expect(Buffer.byteLength(ref)).toBeLessThanOrEqual(64);
    expect(ref).toMatch(/^~[A-Za-z0-9_-]{22}$/);
    expect(await store().decode(ref)).toBe(long);
    const { rows } = await db().query<{ ref_hash: string; payload_enc: Uint8Array }>(
      'SELECT ref_hash, payload_enc FROM skillgate.callback_payloads',
    );
    const dump = JSON.stringify(rows.map((r) => [r.ref_hash, Buffer.from(r.payload_enc).toString('latin1')]));
    expect(dump).not.toContain('tok_xxx');
    expect(dump).not.toContain(ref.slice(1));
  });

  it('multibyte payloads are measured in UTF-8 bytes (22 CJK chars = 66 bytes are stored)', async () => {
    const cjk = '确'.repeat(22);
    const ref = await store().encode(cjk, { limitBytes: 64, expiresAt: new Date(t + 60_000) });
    expect(ref).not.toBe(cjk);
    expect(await store().decode(ref)).toBe(cjk);
  });

  it('a payload that looks like a reference is always stored, so decoding stays unambiguous', async () => {
    const ref = await store().encode('~short', { limitBytes: 64, expiresAt: new Date(t + 60_000) });
    expect(ref).not.toBe('~short');
    expect(await store().decode(ref)).toBe('~short');
    expect(await store().decode('plain:data')).toBe('plain:data');
  });

  it('unknown, malformed, other-account and expired references resolve to null; purge removes expired rows', async () => {
    const s = store();
    const ref = await s.encode('x'.repeat(100), { limitBytes: 64, expiresAt: new Date(t + 1000) });
    expect(await s.decode('~AAAAAAAAAAAAAAAAAAAAAA')).toBeNull();
    expect(await s.decode('~bad')).toBeNull();
    expect(await createCallbackPayloads(db(), 'telegram', 'other', now).decode(ref)).toBeNull();
    t += 1000;
    expect(await s.decode(ref)).toBeNull();
    expect(await s.purgeExpired()).toBeGreaterThanOrEqual(1);
  });

  it('a limit too small for a reference is a RangeError', async () => {
    await expect(store().encode('y'.repeat(30), { limitBytes: 10, expiresAt: new Date(t + 1000) })).rejects.toThrow(RangeError);
  });
});
