/**
 * The operators' console over HTTP (docs/console.md; docs/configuration.md
 * SKILLGATE_ADMIN_TOKEN; docs/console.md): sign-in and CSRF, secrets never returned, failed
 * deliveries retried and discarded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { insertAudit } from '../../src/audit/store.ts';
import { seedDemoDirectory } from '../../src/identity/index.ts';
import type { SkillLifecycle } from '../../src/lifecycle/types.ts';
import { issueWebToken } from '../../src/web-auth/tokens.ts';
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

  it('says how to enable it (zh-CN) when no admin token and no admin contact exist', async () => {
    const bare = await startConsoleRig(db(), { adminToken: null });
    try {
      const s = await bare.call('session', { auth: null });
      expect(s.json.enabled).toBe(false);
      expect(s.json.how_to_enable).toContain('SKILLGATE_ADMIN_TOKEN');
      expect((await bare.call('sections', { auth: null, headers: { authorization: 'Bearer anything' } })).status).toBe(401);
    } finally {
      await bare.close();
    }
  });

  it('counts wrong bearer tokens as failed sign-ins: past the limit the API answers 429', async () => {
    const own = await startConsoleRig(db());
    try {
      const wrong = { auth: null, headers: { authorization: 'Bearer not-the-token' } } as const;
      for (let i = 0; i < 20; i++) expect((await own.call('sections', wrong)).status).toBe(401);
      expect((await own.call('sections', wrong)).status).toBe(429);
      expect((await own.call('sections', { auth: null, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(429);
    } finally {
      await own.close();
    }
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
      expect((await rig.call('sections')).json.map((s: { id: string }) => s.id)).toEqual(
        expect.arrayContaining(['skills', 'secrets', 'outbox', 'audit']),
      );
    });

    it('exchanges the admin token for an HttpOnly SameSite=Strict cookie; writes need the CSRF header', async () => {
      const bad = await rig.call('signin', { method: 'POST', auth: null, body: { token: 'nope' }, headers: { 'x-skillgate-admin': '1' } });
      expect(bad.status).toBe(401);
      const noHeader = await rig.call('signin', { method: 'POST', auth: null, body: { token: ADMIN_TOKEN } });
      expect(noHeader.status).toBe(403);
      const ok = await rig.call('signin', {
        method: 'POST',
        auth: null,
        body: { token: ADMIN_TOKEN },
        headers: { 'x-skillgate-admin': '1' },
      });
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
      const foreign = await rig.call('outbox/1/discard', {
        method: 'POST',
        auth: { cookie },
        headers: { 'x-skillgate-admin': '1', origin: 'https://evil.example' },
      });
      expect(foreign.status).toBe(403);
      // the page and its assets are public (no data); a missing asset is a bare 404
      const pageRes = await fetch(`${rig.url}/admin`);
      expect(pageRes.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await pageRes.text()).toContain('data-testid="admin-token"');
      const missing = await fetch(`${rig.url}/admin/assets/sections/../../../package.json`);
      expect(missing.status).toBe(404);
      expect(await (await fetch(`${rig.url}/admin/assets/nope.js`)).text()).toBe('not found');
      // a tampered cookie is no session
      const tampered = cookie.slice(0, -2) + (cookie.endsWith('AA') ? 'BB' : 'AA');
      expect((await rig.call('sections', { auth: { cookie: tampered } })).status).toBe(401);
    });
  });

  it('signs in an is_admin contact with its web token; taking is_admin away ends the session', async () => {
    await seedDemoDirectory(db(), 'demo', 'default');
    await db().query(`UPDATE skillgate.contacts SET is_admin = true WHERE org_id = 'demo' AND contact_key = 'demo_reporter'`);
    const admin = await issueWebToken(db(), 'demo', 'demo_reporter');
    const worker = await issueWebToken(db(), 'demo', 'demo_worker');
    const csrf = { 'x-skillgate-admin': '1' };
    expect((await rig.call('signin', { method: 'POST', auth: null, body: { token: worker }, headers: csrf })).status).toBe(401);
    const ok = await rig.call('signin', { method: 'POST', auth: null, body: { token: admin }, headers: csrf });
    expect(ok.json.admin).toMatchObject({ kind: 'contact', contact_key: 'demo_reporter' });
    const cookie = (ok.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect((await rig.call('sections', { auth: { cookie } })).status).toBe(200);
    await db().query(`UPDATE skillgate.contacts SET is_admin = false WHERE org_id = 'demo' AND contact_key = 'demo_reporter'`);
    expect((await rig.call('sections', { auth: { cookie } })).status).toBe(401);
  });

  it('lists skills per role with SKILL.md and preflight; enable and install go through the live skill set', async () => {
    const list = await rig.call('skills/roles/default');
    expect(list.json.skills.find((s: { skill: string }) => s.skill === 'countdown')).toMatchObject({
      source: 'builtin',
      enabled: true,
      status: 'ok',
    });
    const detail = await rig.call('skills/roles/default/skills/countdown');
    expect(detail.json.skill_md).toContain('countdown');
    expect(Array.isArray(detail.json.issues)).toBe(true);
    expect((await rig.call('skills/roles/nobody')).status).toBe(404);
    // without a live skill set, changes are refused (503); with one they reach it
    expect((await rig.call('skills/roles/ops/skills/countdown/enabled', { method: 'POST', body: { enabled: false } })).status).toBe(503);
    const calls: unknown[] = [];
    const services = rig.deps.services as { -readonly [K in keyof typeof rig.deps.services]: (typeof rig.deps.services)[K] };
    services.lifecycle = {
      registry: () => services.registry,
      roleState: async () =>
        services.registry
          .all()
          .map((r) => ({ skill: r.name, source: r.source, enabled: true, status: r.status, issues: r.issues, dir: r.dir })),
      setEnabled: async (role: string, skill: string, enabled: boolean) => void calls.push(['setEnabled', role, skill, enabled]),
      install: async (file: string, opts?: { roleId?: string }) => {
        calls.push(['install', basename(file), (await readFile(file)).toString('utf8'), opts]);
        return { ok: true, skill: 'pkg', dir: '/x', warnings: [] };
      },
    } as unknown as SkillLifecycle;
    try {
      expect((await rig.call('skills/roles/ops/skills/countdown/enabled', { method: 'POST', body: { enabled: false } })).json).toEqual({
        ok: true,
        enabled: false,
      });
      const res = await fetch(`${rig.url}/admin/api/skills/install?role=ops&filename=weather.zip`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/zip' },
        body: 'PK-fake-zip',
      });
      expect(await res.json()).toMatchObject({ ok: true, skill: 'pkg' });
      expect(calls).toEqual([
        ['setEnabled', 'ops', 'countdown', false],
        ['install', 'weather.zip', 'PK-fake-zip', { roleId: 'ops' }],
      ]);
    } finally {
      delete services.lifecycle;
    }
  });

  it('reads the audit log newest first with filters and pages', async () => {
    const base = {
      orgId: 'demo',
      channel: 'web',
      line: 'chat',
      sessionId: 's1',
      actorName: '报修人',
      action: '',
      paramsHash: 'h',
      paramKeys: [],
      success: true,
      errorType: null,
      durationMs: 5,
      confirmTokenHash: null,
    };
    for (const [i, skill] of ['datatable', 'countdown', 'datatable'].entries()) {
      await insertAudit(db(), { ...base, at: new Date(Date.UTC(2030, 0, 1, 0, i)), roleId: 'ops', actorEmpNo: `E${i}`, skill });
    }
    const p0 = await rig.call('audit?role=ops&skill=datatable&size=1');
    expect(p0.json.items.map((r: { actorEmpNo: string }) => r.actorEmpNo)).toEqual(['E2']);
    expect(p0.json.has_more).toBe(true);
    const p1 = await rig.call('audit?role=ops&skill=datatable&size=1&page=1');
    expect(p1.json.items.map((r: { actorEmpNo: string }) => r.actorEmpNo)).toEqual(['E0']);
    expect(p1.json.has_more).toBe(false);
    expect((await rig.call('audit?role=ops&actor=E1')).json.items).toHaveLength(1);
    expect((await rig.call('audit?role=ops&since=2030-01-01T00:01:00Z')).json.items).toHaveLength(2);
    expect((await rig.call('audit?since=yesterday')).json.code).toBe('bad_since');
  });

  it('stores a secret parameter encrypted and never returns its value, not even a prefix (R-CFG-05)', async () => {
    const secret = 'sk-live-9f8e7d6c5b4a3210';
    const put = await rig.call('secrets/ops/notify/API_TOKEN', { method: 'PUT', body: { value: secret } });
    expect(put.status).toBe(200);
    expect(put.json).toEqual({ ok: true, key: 'API_TOKEN', secret: true });
    expect((await rig.call('secrets/ops/notify/region', { method: 'PUT', body: { value: 'cn-north' } })).status).toBe(200);
    const list = await rig.call('secrets/ops/notify');
    expect(JSON.stringify(list.json)).not.toContain(secret.slice(0, 6));
    const params = list.json.params as Array<Record<string, unknown>>;
    expect(params.find((p) => p.key === 'API_TOKEN')).toMatchObject({ secret: true, set: true });
    expect(params.find((p) => p.key === 'API_TOKEN')).not.toHaveProperty('value');
    expect(params.find((p) => p.key === 'region')).toMatchObject({ secret: false, set: true, value: 'cn-north' });
    // stored encrypted; the default role sees nothing of it
    const { rows } = await db().query<{ value: string; encrypted: boolean }>(
      `SELECT value, encrypted FROM skillgate.skill_config WHERE role_id = 'ops' AND key = 'API_TOKEN'`,
    );
    expect(rows[0]!.encrypted).toBe(true);
    expect(rows[0]!.value).not.toContain(secret);
    expect((await rig.call('secrets/default/notify')).json.params.some((p: { set: boolean }) => p.set)).toBe(false);
    // refusals carry zh-CN text and a code; delete removes it
    const bad = await rig.call('secrets/ops/notify/9bad', { method: 'PUT', body: { value: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('invalid_key');
    expect((await rig.call('secrets/ops/no_such_skill')).status).toBe(404);
    expect((await rig.call('secrets/ops/notify/API_TOKEN', { method: 'DELETE' })).json).toEqual({ ok: true, deleted: 1 });
    expect((await rig.call('secrets/ops/notify')).json.params.find((p: { key: string }) => p.key === 'API_TOKEN')).toBeUndefined();
  });

  describe('failed deliveries', () => {
    let calls = 0;
    const target = { channel: 'fake', account: 'default', chat_id: 'chat-1' };
    beforeAll(() => {
      rig.adapters.set('fake:default', {
        channel: 'fake',
        account: 'default',
        capabilities: { display: 'text', buttons: false, max_length: 4000, length_unit: 'chars', typing: false, media: false },
        async send() {
          calls += 1;
          return calls === 1
            ? { ok: false, retryable: false, error: 'chat not found (platform said no)', code: 400 }
            : { ok: true, message_ids: [`m${calls}`] };
        },
      });
    });
    const statusOf = async (id: string) => (await rig.outbox.get(id))?.status;

    it('lists a failed delivery with the platform error; retry sends it (attempts reset, queued, woken)', async () => {
      const [id] = await rig.outbox.enqueue(db(), [{ target, message: { kind: 'reply', text: '第一条', format: 'plain', final: true } }]);
      await expect.poll(() => statusOf(id!), { timeout: 20_000 }).toBe('failed');
      const list = await rig.call('outbox');
      expect(list.json.items[0]).toMatchObject({
        id,
        channel: 'fake',
        status: 'failed',
        last_error: 'chat not found (platform said no)',
        preview: '第一条',
      });
      expect(list.json.counts.failed).toBe(1);
      const retried = await rig.call(`outbox/${id}/retry`, { method: 'POST' });
      expect(retried.json).toEqual({ ok: true });
      await expect.poll(() => statusOf(id!), { timeout: 20_000 }).toBe('sent');
      expect((await rig.outbox.get(id!))!.attempts).toBe(1);
      expect(calls).toBe(2);
      // a sent row can be neither retried nor discarded
      expect((await rig.call(`outbox/${id}/retry`, { method: 'POST' })).status).toBe(404);
      expect((await rig.call(`outbox/${id}/discard`, { method: 'POST' })).json.code).toBe('not_failed');
    });

    it('discard keeps the row as discarded and never sends it', async () => {
      calls = 0;
      const [id] = await rig.outbox.enqueue(db(), [
        { target: { ...target, chat_id: 'chat-2' }, message: { kind: 'reply', text: '第二条', format: 'plain', final: true } },
      ]);
      await expect.poll(() => statusOf(id!), { timeout: 20_000 }).toBe('failed');
      expect((await rig.call(`outbox/${id}/discard`, { method: 'POST' })).json).toEqual({ ok: true });
      expect(await statusOf(id!)).toBe('discarded');
      expect((await rig.call('outbox')).json.items.some((i: { id: string }) => i.id === id)).toBe(false);
      expect((await rig.call('outbox?status=discarded')).json.items[0]).toMatchObject({ id, status: 'discarded' });
      expect((await rig.call(`outbox/${id}/retry`, { method: 'POST' })).status).toBe(404);
      expect(calls).toBe(1);
    });
  });
});
