/**
 * notify (R-MSG-01, R-MSG-03, R-MSG-04, R-MSG-08, A-23; docs/messaging.md) against a loopback
 * fake Apprise API server that records requests, through the REAL outbox and the notify
 * adapter: an alias and a bare URL, attachments as multipart, 4xx/5xx → `sent: false` with
 * the server's reason, one idempotency key → one delivery, and no call throws.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createNotifyAdapter, NOTIFY_ACCOUNT, NOTIFY_CHANNEL, runNotify } from '../../src/orchestration/notify.ts';
import { parseTargetSpec, putNotifyTarget, resolveNotifyTarget } from '../../src/orchestration/notify-targets.ts';
import { FakeAppriseApi } from '../fixtures/apprise/fake-apprise-api.ts';
import { messagingEnv, type MessagingEnv } from './helpers.ts';

describeEachEngine('notify', (db) => {
  const apprise = new FakeAppriseApi();
  let env: MessagingEnv;
  beforeAll(async () => {
    await migrate(db());
    await apprise.listen();
    env = messagingEnv(db());
    env.adapters.set(`${NOTIFY_CHANNEL}:${NOTIFY_ACCOUNT}`, createNotifyAdapter({ baseUrl: apprise.url }));
    await putNotifyTarget(db(), 'ops', { kind: 'urls', urls: ['json://ops.example/hook', 'mailto://bot:pw@mail.example'] });
    await putNotifyTarget(db(), 'devops', { kind: 'key', key: 'team_cfg', tag: 'devops' });
  });
  afterAll(async () => {
    await env.stop();
    await apprise.close();
  });
  beforeEach(() => {
    apprise.calls.length = 0;
    apprise.answers.length = 0;
  });

  it('R-MSG-01 alias of Apprise URLs: POST /notify/ with urls, title, body, type; sent is the truth (A-23)', async () => {
    const r = await runNotify({ message: '3号机维修完成，费用 1200 元', title: '维修完成', target: 'ops' }, env.ctx());
    expect(r).toMatchObject({ sent: true, ok: true, status: 'sent', target: 'ops' });
    expect(apprise.calls).toHaveLength(1);
    expect(apprise.calls[0]).toMatchObject({
      path: '/notify/',
      fields: {
        urls: 'json://ops.example/hook mailto://bot:pw@mail.example',
        title: '维修完成',
        body: '3号机维修完成，费用 1200 元',
        type: 'info',
      },
    });
    const row = await env.outbox.get(String(r.outbox_id));
    expect(row?.status).toBe('sent');
    expect(row?.channel).toBe('notify');
    // the credentials of an Apprise URL never reach the outbox's chat key (it is logged)
    expect(row?.chat_key).toBe('notify:default:alias:ops');
  });

  it('R-MSG-01 alias of a config key with a tag: POST /notify/<key> with tag', async () => {
    const r = await runNotify({ message: 'disk 95%', target: 'devops', type: 'warning' }, env.ctx());
    expect(r.sent).toBe(true);
    expect(apprise.calls[0]).toMatchObject({ path: '/notify/team_cfg', fields: { tag: 'devops', body: 'disk 95%', type: 'warning' } });
    expect(apprise.calls[0]!.fields.urls).toBeUndefined();
  });

  it('R-MSG-01 a bare Apprise URL is sent as is; its chat key is a hash, not the URL', async () => {
    const r = await runNotify({ message: 'hi', target: 'tgram://123456:SECRETTOKEN/987' }, env.ctx());
    expect(r.sent).toBe(true);
    expect(apprise.calls[0]!.fields.urls).toBe('tgram://123456:SECRETTOKEN/987');
    const row = await env.outbox.get(String(r.outbox_id));
    expect(row?.chat_key).toMatch(/^notify:default:url:[0-9a-f]{16}$/);
    expect(String(r.target)).not.toContain('SECRETTOKEN');
  });

  it('R-MSG-03 attachments in the workspace arrive as multipart attach files', async () => {
    mkdirSync(join(env.workspace, 'out'), { recursive: true });
    writeFileSync(join(env.workspace, 'out', '报告.pdf'), Buffer.from('%PDF-1.4 fake'));
    writeFileSync(join(env.workspace, 'photo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const r = await runNotify(
      { message: '见附件', target: 'ops', attach: [join(env.workspace, 'out', '报告.pdf'), 'photo.png'] },
      env.ctx(),
    );
    expect(r).toMatchObject({ sent: true, attachments: 2 });
    const call = apprise.calls[0]!;
    expect(call.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(call.fields).toMatchObject({ body: '见附件', urls: 'json://ops.example/hook mailto://bot:pw@mail.example' });
    expect(call.files.map((f) => [f.field, f.filename, f.mimeType, f.data.toString('latin1')])).toEqual([
      ['attach', '报告.pdf', 'application/pdf', '%PDF-1.4 fake'],
      ['attach', 'photo.png', 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('latin1')],
    ]);
  });

  it('R-MSG-03 an attachment outside the workspace or missing is refused before anything is queued', async () => {
    const outside = await runNotify({ message: 'x', target: 'ops', attach: '/etc/passwd' }, env.ctx());
    expect(outside).toMatchObject({ sent: false, ok: false });
    expect(String(outside.error)).toContain('不在会话工作区内');
    const missing = await runNotify({ message: 'x', target: 'ops', attach: 'nope.txt' }, env.ctx());
    expect(String(missing.error)).toContain('附件不存在');
    expect(apprise.calls).toHaveLength(0);
  });

  it('R-MSG-04 a 4xx answer gives sent:false with the server reason, recorded on the outbox row, not retried', async () => {
    apprise.script({ status: 424, body: { error: 'One or more notification could not be sent.', details: [] } });
    const r = await runNotify({ message: 'x', target: 'ops' }, env.ctx());
    expect(r).toMatchObject({ sent: false, ok: false, status: 'failed' });
    expect(String(r.error)).toBe('Apprise API HTTP 424: One or more notification could not be sent.');
    const row = await env.outbox.get(String(r.outbox_id));
    expect(row).toMatchObject({ status: 'failed', error_code: '424', last_error: r.error });
    expect(String(r.user_message)).toContain('通知 ops 失败');
  });

  it('R-MSG-04 a 5xx answer gives sent:false with the reason; the outbox keeps the row for a retry (at least once)', async () => {
    apprise.script({ status: 500, body: { error: 'Failed to save configuration' } });
    const r = await runNotify({ message: 'x', target: 'ops' }, env.ctx());
    expect(r).toMatchObject({ sent: false, ok: false, status: 'queued', retrying: true });
    expect(String(r.error)).toContain('HTTP 500: Failed to save configuration');
    const row = await env.outbox.get(String(r.outbox_id));
    expect(row).toMatchObject({ status: 'queued', attempts: 1, error_code: '500' });
    await db().query("UPDATE skillgate.outbox_messages SET status = 'failed' WHERE id = $1", [r.outbox_id]); // leave no retry behind
  });

  it('one idempotency key → one outbox row and one delivery', async () => {
    const a = await runNotify({ message: 'once', target: 'ops', idempotency_key: 'order-77-done' }, env.ctx());
    const b = await runNotify({ message: 'once', target: 'ops', idempotency_key: 'order-77-done' }, env.ctx());
    expect(a.sent).toBe(true);
    expect(b.sent).toBe(true);
    expect(b.outbox_id).toBe(a.outbox_id);
    expect(apprise.calls).toHaveLength(1);
  });

  it('R-MSG-08 no call throws: unknown alias, no target, no Apprise, unreachable server, no messaging services', async () => {
    const unknown = await runNotify({ message: 'x', target: 'nobody' }, env.ctx());
    expect(unknown).toMatchObject({ sent: false, ok: false });
    expect(String(unknown.error)).toContain('ops');
    expect(await runNotify({ message: 'x' }, env.ctx())).toMatchObject({ sent: false, need_param: 'target' });
    expect(await runNotify({ message: 'x', target: 'ops' }, {})).toMatchObject({ sent: false, error_type: 'config' });
    const noApprise = await runNotify(
      { message: 'x', target: 'ops' },
      env.ctx({ messaging: { ...env.messaging, adapterFor: () => undefined } }),
    );
    expect(String(noApprise.error)).toContain('APPRISE_API_URL');

    const down = createNotifyAdapter({ baseUrl: 'http://127.0.0.1:9' });
    const res = await down.send({ channel: 'notify', account: 'default', chat_id: 'x' }, {
      kind: 'notice',
      text: 'x',
      format: 'plain',
      apprise: { urls: ['json://x'], body: 'x' },
    } as never);
    expect(res).toMatchObject({ ok: false, retryable: true, code: 'network' });
  });

  it('notify target specs: URLs, key:tag, and refusals', async () => {
    expect(parseTargetSpec(['json://a/b', 'mailto://c'])).toEqual({ kind: 'urls', urls: ['json://a/b', 'mailto://c'] });
    expect(parseTargetSpec(['team_cfg:devops,ops'])).toEqual({ kind: 'key', key: 'team_cfg', tag: 'devops,ops' });
    expect(parseTargetSpec(['team_cfg'])).toEqual({ kind: 'key', key: 'team_cfg', tag: null });
    expect(parseTargetSpec(['json://a', 'key'])).toHaveProperty('error');
    expect(parseTargetSpec(['bad key!'])).toHaveProperty('error');
    expect(await resolveNotifyTarget(db(), 'ops')).toMatchObject({ label: 'ops', destination: { kind: 'urls' } });
  });
});
