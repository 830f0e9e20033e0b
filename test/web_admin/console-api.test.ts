/**
 * The operators' console over HTTP (issue 10 §6; CONTRACTS.md §6 `/admin`, §11
 * SKILLGATE_ADMIN_TOKEN; docs/console.md): sign-in and CSRF, secrets never returned, failed
 * deliveries retried and discarded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { ADMIN_TOKEN, startConsoleRig, type ConsoleRig } from './rig.ts';

describeEachEngine('operators console API', (db) => {
  let rig: ConsoleRig;
  beforeAll(async () => {
    rig = await startConsoleRig(db());
  });
  afterAll(async () => {
    await rig?.close();
  });

  describe('sign-in', () => {
    it('refuses every section without a credential, and with a wrong token (401)', async () => {
      expect((await rig.call('sections', { auth: null })).status).toBe(401);
      expect((await rig.call('skills/roles', { auth: null })).status).toBe(401);
      const wrong = await rig.call('sections', { auth: null, headers: { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}y` } });
      expect(wrong.status).toBe(401);
      expect(wrong.json.code).toBe('unauthorized');
      expect(typeof wrong.json.error).toBe('string');
      const short = await rig.call('sections', { auth: null, headers: { authorization: 'Bearer x' } });
      expect(short.status).toBe(401);
      expect((await rig.call('sections')).json.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining(['skills', 'secrets', 'outbox', 'audit']));
    });

    it('exchanges the admin token for an HttpOnly SameSite=Strict cookie; writes need the CSRF header', async () => {
      const bad = await rig.call('signin', { method: 'POST', auth: null, body: { token: 'nope' }, headers: { 'x-skillgate-admin': '1' } });
      expect(bad.status).toBe(401);
      const noHeader = await rig.call('signin', { method: 'POST', auth: null, body: { token: ADMIN_TOKEN } });
      expect(noHeader.status).toBe(403);
      const ok = await rig.call('signin', { method: 'POST', auth: null, body: { token: ADMIN_TOKEN }, headers: { 'x-skillgate-admin': '1' } });
      expect(ok.status).toBe(200);
      const setCookie = ok.headers.get('set-cookie') ?? '';
      expect(setCookie).toMatch(/HttpOnly/);
      expect(setCookie).toMatch(/SameSite=Strict/);
      expect(setCookie).not.toContain(ADMIN_TOKEN);
      const cookie = setCookie.split(';')[0]!;
      const session = await rig.call('session', { auth: { cookie } });
      expect(session.json).toMatchObject({ enabled: true, signed_in: true, admin: { kind: 'token' } });
      expect((await rig.call('sections', { auth: { cookie } })).status).toBe(200);
      // a state-changing request by cookie without the header, or from another origin, is refused
      const csrf = await rig.call('outbox/1/discard', { method: 'POST', auth: { cookie } });
      expect(csrf.status).toBe(403);
      const foreign = await rig.call('outbox/1/discard', { method: 'POST', auth: { cookie }, headers: { 'x-skillgate-admin': '1', origin: 'https://evil.example' } });
      expect(foreign.status).toBe(403);
      // a tampered cookie is no session
      const tampered = cookie.slice(0, -2) + (cookie.endsWith('AA') ? 'BB' : 'AA');
      expect((await rig.call('sections', { auth: { cookie: tampered } })).status).toBe(401);
    });
  });
});

describe('operators console without a way in', () => {
  it('says how to enable it (zh-CN) when no admin token and no admin contact exist', async () => {
    const { openTestDb } = await import('../helpers/db.ts');
    const db = await openTestDb('embedded');
    const rig = await startConsoleRig(db, { adminToken: null });
    try {
      const s = await rig.call('session', { auth: null });
      expect(s.json.enabled).toBe(false);
      expect(s.json.how_to_enable).toContain('SKILLGATE_ADMIN_TOKEN');
      expect((await rig.call('sections', { auth: null, headers: { authorization: 'Bearer anything' } })).status).toBe(401);
    } finally {
      await rig.close();
      await db.close();
    }
  });
});
