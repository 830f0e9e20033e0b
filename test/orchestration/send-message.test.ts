/**
 * send_message (R-MSG-02, R-MSG-03, R-MSG-06, R-MSG-08, A-23, A-49; docs/messaging.md) through
 * the REAL outbox to recording adapters (web: contact keys; a second channel that refuses one
 * chat like a platform would): per-recipient sent / queued / failed, counts, partial success,
 * unknown channel or account, attachments as media, concurrency with notify.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { seedDemoDirectory } from '../../src/identity/index.ts';
import type { OutboundMessage, OutboundTarget, SendResult } from '../../src/channel/types.ts';
import { runSendMessage } from '../../src/orchestration/send-message.ts';
import { createNotifyAdapter, runNotify } from '../../src/orchestration/notify.ts';
import { parseRecipient, recipientList } from '../../src/orchestration/recipients.ts';
import { RecordingAdapter } from '../turn/helpers.ts';
import { FakeAppriseApi } from '../fixtures/apprise/fake-apprise-api.ts';
import { messagingEnv, type MessagingEnv } from './helpers.ts';

/** A Telegram-like recording adapter: chat "404" does not exist (permanent), chat "slow" never answers in time. */
class PickyAdapter extends RecordingAdapter {
  release?: () => void;
  override async send(target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
    if (target.chat_id === '404') return { ok: false, retryable: false, error: 'Bad Request: chat not found', code: 400 };
    if (target.chat_id === 'slow') await new Promise<void>((r) => (this.release = r));
    return super.send(target, message);
  }
}

describeEachEngine('send_message', (db) => {
  let env: MessagingEnv;
  const web = new RecordingAdapter('web');
  const tg = new PickyAdapter('telegram', { max_length: 20 });
  const apprise = new FakeAppriseApi();
  beforeAll(async () => {
    await migrate(db());
    // Web recipients are directory contacts (demo_reporter, demo_worker) of org demo / role default.
    await seedDemoDirectory(db(), 'demo', 'default');
    await apprise.listen();
    env = messagingEnv(db(), { waitMs: 1500 });
    env.adapters.set('web:default', web);
    env.adapters.set('telegram:default', tg);
    env.adapters.set('notify:default', createNotifyAdapter({ baseUrl: apprise.url }));
  });
  afterAll(async () => {
    tg.release?.();
    await env.stop();
    await apprise.close();
  });
  beforeEach(() => {
    web.sent.length = 0;
    tg.sent.length = 0;
  });

  it('R-MSG-02 web recipients are contact keys: two recipients → two adapter sends, ok and counts', async () => {
    const r = await runSendMessage({ to: ['web:demo_worker', 'web:demo_reporter'], message: '您报修的 **3号机** 已修复。' }, env.ctx());
    expect(r).toMatchObject({ ok: true, sent: 2, queued: 0, failed: 0, total: 2, partial: false });
    expect(web.sent.map((s) => [s.target.chat_id, s.message.text, s.message.format])).toEqual([
      ['demo_worker', '您报修的 **3号机** 已修复。', 'markdown'],
      ['demo_reporter', '您报修的 **3号机** 已修复。', 'markdown'],
    ]);
  });

  it('A-23 partial success is explicit: unknown channel, unknown account, a platform refusal, a bad address', async () => {
    const r = await runSendMessage(
      { to: ['web:demo_worker', 'feishu:ou_x', 'telegram@ops_bot:1', 'telegram:404', 'nonsense'], message: 'hi' },
      env.ctx(),
    );
    expect(r).toMatchObject({ ok: false, sent: 1, queued: 0, failed: 4, total: 5, partial: true });
    const results = r.results as { to: string; status: string; error?: string }[];
    expect(results.map((x) => [x.to, x.status])).toEqual([
      ['web:demo_worker', 'sent'],
      ['feishu:ou_x', 'failed'],
      ['telegram@ops_bot:1', 'failed'],
      ['telegram:404', 'failed'],
      ['nonsense', 'failed'],
    ]);
    expect(results[1]!.error).toBe('渠道 feishu 未开启');
    expect(results[2]!.error).toBe('渠道 telegram 没有账号 ops_bot');
    expect(results[3]!.error).toBe('Bad Request: chat not found');
    expect(results[4]!.error).toContain('<渠道>[@<账号>]:<ID>');
    expect(String(r.user_message)).toBe('共 5 位收件人：已送达 1，排队中 0，失败 4。');
  });

  it('a message the platform has not accepted within the wait is reported queued, not failed', async () => {
    const r = await runSendMessage({ to: 'telegram:slow, web:demo_worker', message: 'hold on' }, env.ctx());
    expect(r).toMatchObject({ ok: false, sent: 1, queued: 1, failed: 0, partial: true });
    expect((r.results as { status: string }[]).map((x) => x.status)).toEqual(['queued', 'sent']);
    tg.release?.();
  });

  it('R-MSG-03 attachments become media of the message; the text goes whole in one outbox row (the adapter splits it)', async () => {
    writeFileSync(join(env.workspace, 'photo.jpg'), Buffer.from([0xff, 0xd8, 0xff]));
    const r = await runSendMessage(
      { to: 'telegram:42', message: '第一段很长的说明文字。第二段也很长的说明文字。', format: 'text', attach: ['photo.jpg'] },
      env.ctx(),
    );
    expect(r).toMatchObject({ ok: true, sent: 1 });
    expect(tg.sent).toHaveLength(1);
    const sent = tg.sent[0]!.message;
    expect(sent.text).toBe('第一段很长的说明文字。第二段也很长的说明文字。');
    expect(sent.format).toBe('plain');
    expect(sent.final).toBe(true);
    expect(sent.media?.map((m) => [m.kind, m.filename, m.path])).toEqual([['image', 'photo.jpg', join(env.workspace, 'photo.jpg')]]);
  });

  it('a message cut for a recipient names the file with its whole text and attaches it; an uncut copy has neither', async () => {
    const text = '第一行很长的说明文字。\n'.repeat(100);
    const r = await runSendMessage({ to: ['telegram:42', 'web:demo_worker'], message: text }, env.ctx());
    expect(r).toMatchObject({ ok: true, sent: 2 });
    const cut = tg.sent[0]!.message;
    expect(cut.omitted).toBeGreaterThan(0);
    const file = cut.media?.at(-1);
    expect(file?.filename).toMatch(/^完整回复-\d{8}-\d{6}(-\d+)?\.md$/);
    expect(cut.full_text_file).toBe(file!.filename);
    expect(cut.text.endsWith(`；全文见附件 ${file!.filename}）`)).toBe(true);
    expect(readFileSync(file!.path, 'utf8')).toBe(text);
    expect(file!.path).toBe(join(env.workspace, '.offload', file!.filename));
    const whole = web.sent[0]!.message;
    expect(whole.text).toBe(text);
    expect(whole.media).toBeUndefined();
    expect(whole.full_text_file).toBeUndefined();
  });

  it('R-MSG-06 send_message and notify run concurrently from one skill', async () => {
    const [s, n] = await Promise.all([
      runSendMessage({ to: ['web:demo_worker', 'web:demo_reporter'], message: 'x' }, env.ctx()),
      runNotify({ message: 'x', target: 'json://sink/x' }, env.ctx()),
    ]);
    expect(s).toMatchObject({ ok: true, sent: 2 });
    expect(n).toMatchObject({ sent: true });
  });

  it('R-MSG-08 refusals never throw: no to, no message, no services, notify channel', async () => {
    expect(await runSendMessage({ message: 'x' }, env.ctx())).toMatchObject({ ok: false, need_param: 'to' });
    expect(await runSendMessage({ to: 'web:a' }, env.ctx())).toMatchObject({ ok: false, need_param: 'message' });
    expect(await runSendMessage({ to: 'web:a', message: 'x' }, {})).toMatchObject({ ok: false, error_type: 'config' });
    const r = await runSendMessage({ to: 'notify:ops', message: 'x' }, env.ctx());
    expect((r.results as { error: string }[])[0]!.error).toBe('notify 渠道请用 notify 技能');
  });

  it("R-MSG-02 a web contact key not in the directory of the role's org fails as an unknown recipient; nothing is queued for it", async () => {
    const r = await runSendMessage({ to: 'web:nobody_here', message: 'hi' }, env.ctx());
    expect(r).toMatchObject({ ok: false, sent: 0, queued: 0, failed: 1, total: 1 });
    expect(r.results).toEqual([{ to: 'web:nobody_here', status: 'failed', error: '未知收件人：通讯录里没有 web 联系人 nobody_here' }]);
    expect(String(r.user_message)).toBe('共 1 位收件人：已送达 0，排队中 0，失败 1。');
    // Another role's directory (pseudo org r_<role> for an empty org) does not hold demo_worker.
    const other = await runSendMessage(
      { to: ['web:demo_worker', 'web:nobody_here'], message: 'hi', lang: 'en' },
      env.ctx({ org_id: '', role_id: 'ops' }),
    );
    expect((other.results as { error: string }[]).map((x) => x.error)).toEqual([
      'unknown recipient: no web contact demo_worker in the directory',
      'unknown recipient: no web contact nobody_here in the directory',
    ]);
    expect(web.sent).toEqual([]);
    const { rows } = await db().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM skillgate.outbox_messages WHERE idempotency_key LIKE '%:nobody_here:%'`,
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('recipient addresses', () => {
    expect(parseRecipient('telegram@ops_bot:-100123')).toEqual({
      to: 'telegram@ops_bot:-100123',
      channel: 'telegram',
      account: 'ops_bot',
      id: '-100123',
    });
    expect(parseRecipient('discord:998877')).toMatchObject({ channel: 'discord', account: null, id: '998877' });
    expect(parseRecipient('feishu:')).toBeNull();
    expect(recipientList('web:a, web:b，web:a')).toEqual(['web:a', 'web:b']);
    expect(recipientList([])).toBeNull();
  });
});
