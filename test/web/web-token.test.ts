/**
 * `skillgate web token` core: a token only for a directory contact, usable exactly for that
 * contact's web sign-in; only its hash is stored.
 */
import { beforeAll, expect, it } from 'vitest';
import { migrate } from '../../src/store/migrate.ts';
import { runWebTokenCommand } from '../../src/admin/web-tokens.ts';
import { staticDirectory } from '../../src/web-auth/directory.ts';
import { verifyWebToken } from '../../src/web-auth/tokens.ts';
import { describeEachEngine } from '../helpers/db.ts';

const directory = staticDirectory([{ contact_key: 'demo_worker', name: '维修工' }]);

describeEachEngine('web token command', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  it('refuses a contact that is not in the directory and stores nothing', async () => {
    const r = await runWebTokenCommand(db(), { orgId: 'demo', contactKey: 'nobody' }, directory);
    expect(r.ok).toBe(false);
    const { rows } = await db().query(`SELECT 1 FROM skillgate.web_tokens WHERE contact_key = 'nobody'`);
    expect(rows).toHaveLength(0);
  });

  it('issues a wt_ token that verifies for that contact and org only; the table keeps its hash, never the token', async () => {
    const r = await runWebTokenCommand(db(), { orgId: 'demo', contactKey: 'demo_worker' }, directory);
    if (!r.ok) throw new Error(r.error);
    expect(r.token).toMatch(/^wt_[A-Za-z0-9_-]{43}$/);
    expect(r).toMatchObject({ contact_key: 'demo_worker', name: '维修工', org_id: 'demo' });
    expect(await verifyWebToken(db(), 'demo', r.token, Date.now())).toEqual({ orgId: 'demo', contactKey: 'demo_worker', source: 'issued' });
    expect(await verifyWebToken(db(), 'other', r.token, Date.now())).toBeNull();
    expect(await verifyWebToken(db(), 'demo', r.token.slice(0, -1) + (r.token.endsWith('A') ? 'B' : 'A'), Date.now())).toBeNull();
    const { rows } = await db().query<{ h: string }>(
      `SELECT encode(token_hash, 'hex') AS h FROM skillgate.web_tokens WHERE contact_key = 'demo_worker'`,
    );
    expect(rows.map((x) => x.h)).not.toContain(Buffer.from(r.token).toString('hex'));
    expect(rows[0]!.h).toMatch(/^[0-9a-f]{64}$/);
  });
});
