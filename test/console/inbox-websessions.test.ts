/**
 * Console sections `inbox` (quarantined events: list, retry, discard) and `websessions` (a
 * contact's web sessions: list, revoke one or all; a single-use sign-in link). Both engines.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDemoDirectory } from '../../src/identity/index.ts';
import { issueWebToken, verifyWebToken } from '../../src/web-auth/tokens.ts';
import { consumeSigninLink } from '../../src/web-auth/signin-links.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { inbound } from '../inbox/helpers.ts';
import { startConsoleRig, type ConsoleRig } from './rig.ts';

describeEachEngine('console: quarantined events and web sessions', (db) => {
  let rig: ConsoleRig;
  const write = { 'x-skillgate-admin': '1' };
  beforeAll(async () => {
    rig = await startConsoleRig(db());
    await seedDemoDirectory(db(), 'demo');
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('inbox: a quarantined event is listed with its error, retried once (then 404), another discarded', async () => {
    await db().query('TRUNCATE skillgate.inbox_events');
    const insert = async (key: string) =>
      (
        await db().query<{ id: string }>(
          `INSERT INTO skillgate.inbox_events (channel, account, dedupe_key, chat_key, payload, status, attempts, next_attempt_at, received_at, error)
         VALUES ('telegram', 'default', $1, 'telegram:default:c9', $2::jsonb, 'failed', 5, now(), now(), 'Error: boom') RETURNING id::text AS id`,
          [`telegram:update:${key}`, JSON.stringify(inbound('c9', key, `poison ${key}`))],
        )
      ).rows[0]!.id;
    const a = await insert('q1');
    const b = await insert('q2');
    const list = await rig.call('inbox');
    expect(list.status).toBe(200);
    expect(list.json.counts.failed).toBe(2);
    expect(list.json.items.map((i: { id: string; error: string; preview: string }) => [i.id, i.error, i.preview])).toEqual([
      [b, 'Error: boom', 'poison q2'],
      [a, 'Error: boom', 'poison q1'],
    ]);
    expect((await rig.call(`inbox/${a}/retry`, { method: 'POST', headers: write })).json).toEqual({ ok: true });
    expect((await rig.call(`inbox/${a}/retry`, { method: 'POST', headers: write })).status).toBe(404);
    expect((await rig.call(`inbox/${b}/discard`, { method: 'POST', headers: write })).json).toEqual({ ok: true });
    const { rows } = await db().query<{ id: string; status: string; attempts: number }>(
      `SELECT id::text AS id, status, attempts FROM skillgate.inbox_events ORDER BY id`,
    );
    expect(rows).toEqual([
      { id: a, status: 'received', attempts: 0 },
      { id: b, status: 'discarded', attempts: 5 },
    ]);
    expect((await rig.call('inbox?status=discarded')).json.items.map((i: { id: string }) => i.id)).toEqual([b]);
  });

  it('websessions: lists a contact’s sessions, revokes one then all; issues a link that signs that contact in once', async () => {
    const t1 = await issueWebToken(db(), 'demo', 'demo_worker');
    const t2 = await issueWebToken(db(), 'demo', 'demo_worker');
    const other = await issueWebToken(db(), 'demo', 'demo_reporter');
    const listed = await rig.call('websessions?contact=demo_worker');
    expect(listed.status).toBe(200);
    const ids = listed.json.sessions.map((s: { id: string }) => s.id);
    expect(ids).toHaveLength(2);
    expect(JSON.stringify(listed.json)).not.toContain(t1); // the tokens themselves are never shown
    expect(
      (await rig.call('websessions/revoke', { method: 'POST', headers: write, body: { contact: 'demo_worker', id: ids[0] } })).json,
    ).toEqual({ revoked: 1 });
    const live = [await verifyWebToken(db(), 'demo', t1, Date.now()), await verifyWebToken(db(), 'demo', t2, Date.now())].filter(Boolean);
    expect(live).toHaveLength(1);
    expect((await rig.call('websessions/revoke', { method: 'POST', headers: write, body: { contact: 'demo_worker' } })).json).toEqual({
      revoked: 1,
    });
    expect(await verifyWebToken(db(), 'demo', t2, Date.now())).toBeNull();
    expect(await verifyWebToken(db(), 'demo', other, Date.now())).not.toBeNull(); // another contact untouched
    expect((await rig.call('websessions?contact=nobody')).status).toBe(404);

    const link = await rig.call('websessions/link', { method: 'POST', headers: write, body: { contact: 'demo_reporter' } });
    expect(link.status).toBe(200);
    const code = /#signin=(wl_[A-Za-z0-9_-]+)$/.exec(link.json.url)![1]!;
    expect(await consumeSigninLink(db(), 'demo', code, Date.now())).toBe('demo_reporter');
    expect(await consumeSigninLink(db(), 'demo', code, Date.now())).toBeNull();
  });
});
