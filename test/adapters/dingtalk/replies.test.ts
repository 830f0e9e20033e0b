/**
 * DingTalk replies and inbound rules beyond the kit (its known failure kinds): the
 * session webhook until `sessionWebhookExpiredTime` then the Open API (single chat → batchSend
 * to the sender's staff id, group → groupMessages/send), the access token cached and refreshed,
 * an event redelivered five times in one second answered once (real inbox), a Chinese file name
 * in, confirm buttons as `dtmd` links pressed back into callbacks, the channel factory.
 * Injectable clock throughout; the fake speaks DingTalk's wire format on loopback.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { startFakePlatform, createRecordingHost, type FakePlatform, type RecordingHost } from '../../../adapters/contract/index.ts';
import { createDingtalkAdapter, dingtalkChannel } from '../../../adapters/dingtalk/index.ts';
import { SESSION_MARGIN_MS } from '../../../adapters/dingtalk/outbound.ts';
import { sessionWebhookUrl } from '../../../adapters/dingtalk/sessions.ts';
import type { ChannelFactoryContext } from '../../../src/channel/factory.ts';
import type { OutboundMessage, WebhookAdapter } from '../../../src/channel/types.ts';
import { ConfigError } from '../../../src/config/errors.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { migrate } from '../../../src/store/migrate.ts';
import { describeEachEngine } from '../../helpers/db.ts';
import { captureLog } from '../../inbox/helpers.ts';
import {
  APP_KEY,
  EXPECTED,
  SECRETS,
  fixture,
  installDingtalk,
  msgParamOf,
  sentText,
  serveDownload,
  signedRequest,
  type DingtalkState,
} from './fake-dingtalk.ts';

const P2P = JSON.parse(fixture('text_single_chat.json').toString()) as {
  conversationId: string;
  sessionWebhookExpiredTime: number;
  createAt: number;
};
const GROUP = JSON.parse(fixture('text_group_at.json').toString()) as { conversationId: string; sessionWebhookExpiredTime: number };
const reply = (text: string, extra: Partial<OutboundMessage> = {}): OutboundMessage => ({
  kind: 'reply',
  text,
  format: 'markdown',
  final: true,
  ...extra,
});

describeEachEngine('dingtalk replies', (db) => {
  let fake: FakePlatform;
  let state: DingtalkState;
  let adapter: WebhookAdapter;
  let host: RecordingHost;
  let t = 0;
  const clock = {
    now: () => new Date(t),
    set: (v: string | Date) => void (t = new Date(v).getTime()),
    advance: (ms: number) => void (t += ms),
  };

  beforeAll(async () => {
    await migrate(db());
    fake = await startFakePlatform();
    state = installDingtalk(fake);
    host = createRecordingHost(db(), clock, () => adapter);
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => {
    t = P2P.createAt + 5;
    fake.reset();
    adapter = createDingtalkAdapter({
      account: 'default',
      appKey: APP_KEY,
      appSecret: SECRETS.app_secret,
      robotCode: SECRETS.robot_code,
      apiRoot: fake.baseUrl,
      oapiRoot: fake.baseUrl,
      db: db(),
      log: createLogger({ level: 'silent', pretty: false }),
      now: () => t,
    });
  });

  /** Deliver a fixture with its own recorded signature headers at its own time. */
  async function deliverFixture(name: 'text_single_chat' | 'text_group_at'): Promise<void> {
    const c = EXPECTED.cases[`dingtalk/${name}.json`]!;
    t = Number(c.request.headers.timestamp);
    const res = await adapter.handleWebhook(
      {
        method: 'POST',
        path: '',
        headers: { timestamp: c.request.headers.timestamp, sign: c.request.headers.sign },
        query: {},
        body: fixture(`${name}.json`),
      },
      host,
    );
    expect(res.status).toBe(200);
  }

  it('a reply while the session webhook is valid goes to that sessionWebhook as markdown with a title', async () => {
    await deliverFixture('text_single_chat');
    const res = await adapter.send(
      { channel: 'dingtalk', account: 'default', chat_id: P2P.conversationId, chat_type: 'direct' },
      reply('## 工单42\n\n进度：**处理中**'),
    );
    expect(res.ok).toBe(true);
    const sends = fake.calls('/robot/sendBySession');
    expect(sends).toHaveLength(1);
    expect(sends[0]!.query.session).toBe('test_session_p2p_0001');
    const body = sends[0]!.json as { msgtype: string; markdown: { title: string; text: string } };
    expect(body.msgtype).toBe('markdown');
    expect(body.markdown.title).toBe('工单42');
    expect(body.markdown.text).toContain('**处理中**');
    expect(fake.calls(/^\/v1\.0\//)).toHaveLength(0); // no token, no Open API
  });

  it('a DingTalk reply after the session webhook expired falls back to the Open API (batchSend to the sender staff id)', async () => {
    await deliverFixture('text_single_chat');
    clock.set(new Date(P2P.sessionWebhookExpiredTime + 1));
    const res = await adapter.send(
      { channel: 'dingtalk', account: 'default', chat_id: P2P.conversationId, chat_type: 'direct' },
      reply('稍后回复'),
    );
    expect(res).toMatchObject({ ok: true });
    expect(fake.calls('/robot/sendBySession')).toHaveLength(0);
    const [send] = fake.calls('/v1.0/robot/oToMessages/batchSend');
    expect(send!.headers['x-acs-dingtalk-access-token']).toBe(state.token);
    expect(send!.json).toMatchObject({ robotCode: SECRETS.robot_code, userIds: ['test_staff_001'], msgKey: 'sampleMarkdown' });
    expect(msgParamOf(send!)).toMatchObject({ title: '稍后回复', text: '稍后回复' });
    if (res.ok) expect(res.message_ids).toEqual([expect.stringMatching(/^pqk_kit_/)]);
  });

  it(`the session webhook is not used in its last ${SESSION_MARGIN_MS / 1000} s; a group then goes through groupMessages/send`, async () => {
    await deliverFixture('text_group_at');
    clock.set(new Date(GROUP.sessionWebhookExpiredTime - SESSION_MARGIN_MS + 1));
    const res = await adapter.send(
      { channel: 'dingtalk', account: 'default', chat_id: GROUP.conversationId, chat_type: 'group' },
      reply('群里回复'),
    );
    expect(res.ok).toBe(true);
    expect(fake.calls('/robot/sendBySession')).toHaveLength(0);
    expect(fake.calls('/v1.0/robot/groupMessages/send')[0]!.json).toMatchObject({
      openConversationId: GROUP.conversationId,
      msgKey: 'sampleMarkdown',
    });
  });

  it('a session webhook that refuses the message is abandoned for the Open API within the same send', async () => {
    await deliverFixture('text_single_chat');
    fake.script('POST', '/robot/sendBySession', { json: { errcode: 300001, errmsg: 'session 不存在或已过期' } }, 1);
    const res = await adapter.send(
      { channel: 'dingtalk', account: 'default', chat_id: P2P.conversationId, chat_type: 'direct' },
      reply('回退'),
    );
    expect(res.ok).toBe(true);
    expect(fake.calls('/robot/sendBySession')).toHaveLength(1);
    expect(fake.calls('/v1.0/robot/oToMessages/batchSend')).toHaveLength(1);
  });

  it('a single-chat reply queued before a restart still reaches the partner: the staff id travels with the outbox target', async () => {
    await deliverFixture('text_single_chat');
    const msg = host.calls.at(-1)!.msg;
    expect(msg.reply_route, JSON.stringify(msg)).toEqual({ staff_id: 'test_staff_001' });
    // The target as the turn stores it on the outbox row (src/turn/turn.ts targetOf), then a restart: a new adapter, no memory.
    const target = {
      channel: 'dingtalk' as const,
      account: 'default',
      chat_id: msg.chat.id,
      chat_type: 'direct' as const,
      route: msg.reply_route,
    };
    const restarted = createDingtalkAdapter({
      account: 'default',
      appKey: APP_KEY,
      appSecret: SECRETS.app_secret,
      robotCode: SECRETS.robot_code,
      apiRoot: fake.baseUrl,
      oapiRoot: fake.baseUrl,
      db: db(),
      log: createLogger({ level: 'silent', pretty: false }),
      now: () => t,
    });
    const res = await restarted.send(JSON.parse(JSON.stringify(target)), reply('重启后的回复'));
    expect(res).toMatchObject({ ok: true });
    expect(fake.calls('/v1.0/robot/oToMessages/batchSend')[0]!.json).toMatchObject({ userIds: ['test_staff_001'] });
  });

  it('a single chat whose staff id is unknown (no callback seen, cid target) fails permanently, naming why', async () => {
    const res = await adapter.send(
      { channel: 'dingtalk', account: 'default', chat_id: 'cidUnknown+p2p=', chat_type: 'direct' },
      reply('x'),
    );
    expect(res).toMatchObject({ ok: false, retryable: false, code: 'no_staff_id' });
    expect(fake.requests).toHaveLength(0);
  });

  it('the access token is fetched once and cached; refreshed after expireIn; a refused token is refreshed once', async () => {
    const target = { channel: 'dingtalk', account: 'default', chat_id: 'test_staff_001', chat_type: 'direct' as const };
    const before = state.tokenCalls;
    expect((await adapter.send(target, reply('一'))).ok).toBe(true);
    expect((await adapter.send(target, reply('二'))).ok).toBe(true);
    expect(state.tokenCalls - before).toBe(1);
    clock.advance(7200_000);
    expect((await adapter.send(target, reply('三'))).ok).toBe(true);
    expect(state.tokenCalls - before).toBe(2);
    state.rotate(); // the platform revokes the token early
    expect((await adapter.send(target, reply('四'))).ok).toBe(true);
    expect(state.tokenCalls - before).toBe(3);
    const sends = fake.calls('/v1.0/robot/oToMessages/batchSend');
    expect(sends.at(-2)!.headers['x-acs-dingtalk-access-token']).not.toBe(state.token); // refused once …
    expect(sends.at(-1)!.headers['x-acs-dingtalk-access-token']).toBe(state.token); // … then sent with the new one
  });

  it('an event redelivered five times in one second is answered once (2xx each, one accepted in the inbox)', async () => {
    const body = { ...JSON.parse(fixture('text_single_chat.json').toString()), msgId: 'msgRedeliver0001==' };
    const start = P2P.createAt + 10;
    const before = host.calls.length;
    for (let i = 0; i < 5; i++) {
      t = start + i * 200;
      const res = await adapter.handleWebhook(signedRequest(body, t), host);
      expect(res.status).toBe(200);
    }
    expect(host.calls.slice(before).map((c) => c.result)).toEqual(['accepted', 'duplicate', 'duplicate', 'duplicate', 'duplicate']);
    const { rows } = await db().query<{ n: number }>('SELECT count(*)::int AS n FROM skillgate.inbox_events WHERE dedupe_key = $1', [
      'dingtalk:msg:msgRedeliver0001==',
    ]);
    expect(rows[0]!.n).toBe(1);
  });

  it('a (timestamp, sign) pair replayed 60 s later with another body is 401 — also at another replica — and nothing of it is stored', async () => {
    const first = { ...JSON.parse(fixture('text_single_chat.json').toString()), msgId: 'msgReplayA0001==' };
    const signed = signedRequest(first, t);
    expect((await adapter.handleWebhook(signed, host)).status).toBe(200);
    // The same headers, another sender and text: what a captured pair would carry.
    const forged = { ...first, msgId: 'msgReplayB0001==', senderStaffId: 'someone_else', text: { content: 'drop table' } };
    t += 60_000;
    const replay = { ...signed, body: Buffer.from(JSON.stringify(forged)) };
    expect((await adapter.handleWebhook(replay, host)).status).toBe(401);
    const replica = createDingtalkAdapter({
      account: 'default',
      appKey: APP_KEY,
      appSecret: SECRETS.app_secret,
      robotCode: SECRETS.robot_code,
      apiRoot: fake.baseUrl,
      oapiRoot: fake.baseUrl,
      db: db(),
      log: createLogger({ level: 'silent', pretty: false }),
      now: () => t,
    });
    expect((await replica.handleWebhook(replay, host)).status).toBe(401);
    // The platform's redelivery of the same bytes passes verification and is the inbox's duplicate.
    expect((await replica.handleWebhook(signed, host)).status).toBe(200);
    const { rows } = await db().query<{ dedupe_key: string }>(
      "SELECT dedupe_key FROM skillgate.inbox_events WHERE dedupe_key LIKE 'dingtalk:msg:msgReplay%' ORDER BY id",
    );
    expect(rows.map((r) => r.dedupe_key)).toEqual(['dingtalk:msg:msgReplayA0001==']);
  });

  it('a signed callback whose text carries NUL or a lone surrogate is stored by the inbox (U+FFFD), never a 5xx; valid text stays verbatim', async () => {
    const raw = Buffer.from(
      JSON.stringify({
        ...JSON.parse(fixture('text_single_chat.json').toString()),
        msgId: 'msgNul0001==',
        text: { content: 'a\u0000b' },
      }).replace('a\\u0000b', 'a\\u0000b\\ud800 😀'),
    );
    expect((await adapter.handleWebhook(signedRequest(raw, t), host)).status).toBe(200);
    const { rows } = await db().query<{ raw: string }>(
      "SELECT payload->>'raw_input' AS raw FROM skillgate.inbox_events WHERE dedupe_key = $1",
      ['dingtalk:msg:msgNul0001=='],
    );
    expect(rows.map((r) => r.raw)).toEqual(['a\uFFFDb\uFFFD 😀']);
  });

  it('a Chinese file name in: kept on the attachment, fetched through the download code with its bytes', async () => {
    const filename = '泵房3 巡检记录（2026-01）.xlsx';
    const data = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0xe6, 0xb3, 0xb5, 0x00, 0xff]);
    serveDownload(fake, 'dc_cn_file_0001', {
      filename,
      data,
      mime_type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    });
    const body = {
      ...JSON.parse(fixture('text_single_chat.json').toString()),
      msgId: 'msgCnFile0001==',
      msgtype: 'file',
      text: undefined,
      content: { fileName: filename, downloadCode: 'dc_cn_file_0001', spaceId: '1', fileId: '2' },
    };
    const before = host.accepted().length;
    expect((await adapter.handleWebhook(signedRequest(body, t), host)).status).toBe(200);
    const msg = host.accepted().slice(before)[0]!;
    expect(msg.attachments).toEqual([{ type: 'file', filename, mime_type: null, platform_ref: { download_code: 'dc_cn_file_0001' } }]);
    const got = await adapter.fetchAttachment!(msg.attachments[0]!, msg);
    expect(got.data.equals(data)).toBe(true);
    expect(got.filename).toBe(filename);
    expect(fake.calls('/v1.0/robot/messageFiles/download')[0]!.json).toEqual({
      downloadCode: 'dc_cn_file_0001',
      robotCode: SECRETS.robot_code,
    });
  });

  it('confirm buttons are dtmd send-message links; pressing one comes back as a callback with the token; groups get the @ hint', async () => {
    await deliverFixture('text_single_chat');
    const token = `tok_${'y'.repeat(60)}`;
    const confirm = {
      token,
      prompt_md: '确认删除 **3** 行？',
      options: [
        { id: 'confirm' as const, label: '确认' },
        { id: 'cancel' as const, label: '取消' },
      ],
      expires_at: new Date(t + 300_000).toISOString(),
    };
    expect(
      (
        await adapter.send(
          { channel: 'dingtalk', account: 'default', chat_id: P2P.conversationId, chat_type: 'direct' },
          reply('', { confirm }),
        )
      ).ok,
    ).toBe(true);
    const text = sentText(fake.calls('/robot/sendBySession')[0]!)!;
    expect(text).toContain('确认删除 **3** 行？');
    const contents = [...text.matchAll(/\(dtmd:\/\/dingtalkclient\/sendMessage\?content=([^)]+)\)/g)].map((m) => decodeURIComponent(m[1]!));
    expect(contents).toHaveLength(2);
    expect(contents[0]).toMatch(/^确认 ~/);
    expect(text).not.toContain(token); // the token itself never appears in the chat
    const before = host.accepted().length;
    const press = { ...JSON.parse(fixture('text_single_chat.json').toString()), msgId: 'msgPress0001==', text: { content: contents[0] } };
    expect((await adapter.handleWebhook(signedRequest(press, t), host)).status).toBe(200);
    const got = host.accepted().slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ kind: 'callback', raw_input: null, callback: { action: 'confirm', token } });
    // A reference that is not ours stays an ordinary message.
    const forged = { ...press, msgId: 'msgPress0002==', text: { content: '确认 ~AAAAAAAAAAAAAAAAAAAAAA' } };
    await adapter.handleWebhook(signedRequest(forged, t), host);
    expect(host.accepted().at(-1)).toMatchObject({ kind: 'message', raw_input: '确认 ~AAAAAAAAAAAAAAAAAAAAAA' });
    fake.reset();
    await adapter.send({ channel: 'dingtalk', account: 'default', chat_id: 'cidG=', chat_type: 'group' }, reply('', { confirm }));
    expect(sentText(fake.calls('/v1.0/robot/groupMessages/send')[0]!)).toContain('群聊中请 @我 并回复「确认」或「取消」');
  });
});

it('session webhooks are rebased onto DINGTALK_OAPI_ROOT; any other path is refused', () => {
  expect(sessionWebhookUrl('https://oapi.dingtalk.com/robot/sendBySession?session=abc', 'http://127.0.0.1:9/')).toBe(
    'http://127.0.0.1:9/robot/sendBySession?session=abc',
  );
  expect(sessionWebhookUrl('https://evil.example/robot/sendBySession?session=abc', 'https://oapi.dingtalk.com')).toBe(
    'https://oapi.dingtalk.com/robot/sendBySession?session=abc',
  );
  for (const bad of ['https://oapi.dingtalk.com/robot/send?access_token=x', 'file:///robot/sendBySession', 'not a url', '', null]) {
    expect(sessionWebhookUrl(bad, 'https://oapi.dingtalk.com')).toBeNull();
  }
});

function factoryCtx(env: Record<string, string>, accounts: Record<string, unknown>[] = []) {
  const { log, lines } = captureLog();
  const c = {
    db: undefined as never,
    log,
    env,
    config: { accounts } as never,
    defaultRoleId: 'default',
    dataDir: '/tmp',
    secretKey: Buffer.alloc(32),
  } as ChannelFactoryContext;
  return { c, lines };
}

it('DINGTALK_* is account default, config accounts add more, off when unconfigured, start-up report without secrets', async () => {
  expect(await dingtalkChannel.create(factoryCtx({ DINGTALK_APP_SECRET: 's' }).c)).toEqual([]);
  const { c, lines } = factoryCtx({ DINGTALK_APP_KEY: 'k', DINGTALK_APP_SECRET: 'secret-env' }, [
    { channel: 'dingtalk', id: 'ops', role: 'default', app_key: 'k2', app_secret: 'secret-cfg', robot_code: 'r2' },
  ]);
  const adapters = await dingtalkChannel.create(c);
  expect(adapters.map((a) => [a.channel, a.account])).toEqual([
    ['dingtalk', 'default'],
    ['dingtalk', 'ops'],
  ]);
  const report = lines().filter((l) => l.channel === 'dingtalk' && String(l.msg).includes(' on '));
  expect(report.map((l) => l.account)).toEqual(['default', 'ops']);
  expect(JSON.stringify(lines())).not.toMatch(/secret-env|secret-cfg/);
  await expect(dingtalkChannel.create(factoryCtx({ DINGTALK_APP_KEY: 'k' }).c)).rejects.toMatchObject({ key: 'DINGTALK_APP_SECRET' });
  await expect(
    dingtalkChannel.create(factoryCtx({}, [{ channel: 'dingtalk', id: 'x', role: 'default', app_key: 'k' }]).c),
  ).rejects.toBeInstanceOf(ConfigError);
});
