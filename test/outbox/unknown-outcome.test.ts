/**
 * Sends whose outcome is unknown (docs/operations-delivery.md "Unknown outcomes"): the fake
 * platform reads the whole request, posts the message, then destroys the socket without an
 * answer (a reset after write). The outbox marks the row `pending` and the retry resends the
 * part — under the platform's idempotency key on Feishu (`uuid`) and Discord (`nonce` +
 * `enforce_nonce`), so the user gets it once; with the visible marker on Telegram, which has
 * no key. A connection that was never made is retried plainly. The real adapters against the
 * loopback fakes; both engines.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakePlatform, type FakePlatform } from '../../adapters/contract/index.ts';
import { DiscordAdapter } from '../../adapters/discord/index.ts';
import { createFeishuAdapter } from '../../adapters/feishu/index.ts';
import { TelegramAdapter } from '../../adapters/telegram/index.ts';
import type { ChannelAdapter, OutboundTarget } from '../../src/channel/types.ts';
import { createLogger } from '../../src/log/logger.ts';
import { createOutbox, type OutboxOptions } from '../../src/outbox/index.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { captureLog } from '../inbox/helpers.ts';
import {
  BOT,
  DM_CHANNEL,
  installDiscord,
  messageBody,
  TOKEN as DISCORD_TOKEN,
  type DiscordState,
} from '../adapters/discord/fake-discord.ts';
import { contentOf, installOpenApi, type OpenApiState } from '../adapters/feishu/open-api.ts';
import { SECRET, TOKEN, useFakeTelegram } from '../adapters/telegram/fake-telegram.ts';
import { FakeClock } from './fakes.ts';

const silent = createLogger({ level: 'silent', pretty: false });
const FEISHU_SEND = '/open-apis/im/v1/messages';
const DISCORD_SEND = '/api/v10/channels/:channel/messages';

/** A loopback port nothing listens on (connections are refused). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describeEachEngine('outbox: a send whose outcome is unknown', (db) => {
  const telegram = useFakeTelegram(db, 'TRUNCATE skillgate.outbox_messages, skillgate.delivery_pace');
  let feishuFake: FakePlatform;
  let feishuState: OpenApiState;
  let discordFake: FakePlatform;
  let discordState: DiscordState;
  beforeAll(async () => {
    feishuFake = await startFakePlatform();
    feishuState = installOpenApi(feishuFake);
    discordFake = await startFakePlatform();
    discordState = installDiscord(discordFake);
  });
  afterAll(async () => {
    await feishuFake.close();
    await discordFake.close();
  });

  const outboxWith = (adapterFor: OutboxOptions['adapterFor'], extra: Partial<OutboxOptions> = {}) => {
    const clock = new FakeClock();
    const events: string[] = [];
    const outbox = createOutbox(db(), {
      log: captureLog().log,
      clock,
      adapterFor,
      random: () => 0.5,
      onAmbiguous: (channel, event) => events.push(`${channel}:${event}`),
      ...extra,
    });
    return { outbox, clock, events };
  };
  const telegramAdapter = (apiRoot: string): ChannelAdapter =>
    new TelegramAdapter(
      { account: 'default', token: TOKEN, webhookSecret: SECRET, mode: 'webhook', apiRoot, maxRetryDelayS: 0 },
      { db: db(), log: silent },
    );
  const sentTexts = (): string[] =>
    telegram()
      .calls(/\/sendMessage$/)
      .map((r) => String((r.json as { text?: string }).text ?? ''));

  it('Feishu: reset after write → pending; the resend carries the same uuid and Feishu answers with the first message (delivered once)', async () => {
    const adapter = createFeishuAdapter({
      account: 'default',
      appId: 'cli_x',
      appSecret: 's',
      verificationToken: 'v',
      domain: feishuFake.baseUrl,
      mode: 'webhook',
      log: silent,
    });
    const { outbox, clock, events } = outboxWith(() => adapter);
    feishuFake.script('POST', FEISHU_SEND, { dropAnswer: true });
    const target: OutboundTarget = { channel: 'feishu', account: 'default', chat_id: 'oc_unknown_outcome_1', chat_type: 'group' };
    const [id] = await outbox.enqueue(db(), [{ target, message: { kind: 'reply', text: '巡检结果：正常', format: 'plain', final: true } }]);

    await outbox.deliverDue();
    expect(await outbox.get(id!)).toMatchObject({
      status: 'queued',
      attempts: 1,
      ambiguity: 'pending',
      ambiguous_part: 0,
      ambiguous_attempts: 1,
    });
    expect(feishuState.uuids.size).toBe(1); // the platform did post it

    clock.advance(300_000);
    expect(await outbox.deliverDue()).toBe(1);
    const row = await outbox.get(id!);
    expect(row).toMatchObject({ status: 'sent', attempts: 2, ambiguity: 'resolved_by_key', ambiguous_attempts: 1 });
    const sends = feishuFake.calls(FEISHU_SEND, 'POST').map((r) => contentOf(r)!);
    expect(sends).toHaveLength(2);
    expect(sends[1]!.uuid).toBe(sends[0]!.uuid);
    expect(sends[1]!.content).toEqual(sends[0]!.content); // no marker: the key dedups
    expect(feishuState.uuids.size).toBe(1); // one message in the chat
    expect(row!.platform_message_ids).toEqual([feishuState.uuids.get(sends[0]!.uuid!)]);
    expect(events).toEqual(['feishu:unknown', 'feishu:resolved_by_key']);
  });

  it('Discord: reset after write → pending; the resend carries the same nonce with enforce_nonce and gets the first message back', async () => {
    const adapter = new DiscordAdapter(
      {
        account: 'default',
        token: DISCORD_TOKEN,
        apiRoot: `${discordFake.baseUrl}/api`,
        messageContent: true,
        publicKey: null,
        maxRetryDelayMs: 0,
      },
      { db: db(), log: silent, botInfo: BOT },
    );
    const { outbox, clock } = outboxWith(() => adapter);
    const before = discordState.messages.length;
    discordFake.reset();
    discordFake.script('POST', DISCORD_SEND, { dropAnswer: true });
    const target: OutboundTarget = { channel: 'discord', account: 'default', chat_id: DM_CHANNEL, chat_type: 'direct' };
    const [id] = await outbox.enqueue(db(), [
      { target, message: { kind: 'reply', text: 'pump 3 is back online', format: 'plain', final: true } },
    ]);

    await outbox.deliverDue();
    expect(await outbox.get(id!)).toMatchObject({ status: 'queued', ambiguity: 'pending', ambiguous_part: 0, ambiguous_attempts: 1 });
    clock.advance(300_000);
    await outbox.deliverDue();
    const row = await outbox.get(id!);
    expect(row).toMatchObject({ status: 'sent', attempts: 2, ambiguity: 'resolved_by_key' });
    const bodies = discordFake.calls(DISCORD_SEND, 'POST').map(messageBody);
    expect(bodies).toHaveLength(2);
    expect(typeof bodies[0]!.nonce).toBe('string');
    expect(String(bodies[0]!.nonce).length).toBeLessThanOrEqual(25);
    expect(bodies[1]).toMatchObject({ nonce: bodies[0]!.nonce, enforce_nonce: true, content: 'pump 3 is back online' });
    const created = discordState.messages.slice(before);
    expect(created).toHaveLength(1); // delivered once
    expect(row!.platform_message_ids).toEqual([created[0]!.id]);
  });

  it('Telegram (no key): reset after write → the part is resent once, starting with the zh-CN marker', async () => {
    const adapter = telegramAdapter(telegram().baseUrl);
    const { outbox, clock, events } = outboxWith(() => adapter);
    telegram().script('POST', /\/sendMessage$/, { dropAnswer: true });
    const target: OutboundTarget = { channel: 'telegram', account: 'default', chat_id: '5151', chat_type: 'direct' };
    const [id] = await outbox.enqueue(db(), [
      { target, message: { kind: 'reply', text: '今日产量 1200 件', format: 'plain', final: true } },
    ]);

    await outbox.deliverDue();
    expect(await outbox.get(id!)).toMatchObject({ status: 'queued', ambiguity: 'pending', ambiguous_part: 0, ambiguous_attempts: 1 });
    clock.advance(300_000);
    await outbox.deliverDue();
    expect(await outbox.get(id!)).toMatchObject({ status: 'sent', attempts: 2, ambiguity: 'resent_with_marker' });
    expect(sentTexts()).toEqual(['今日产量 1200 件', '（可能重复）今日产量 1200 件']);
    expect(events).toEqual(['telegram:unknown', 'telegram:resent_with_marker']);
  });

  it('Telegram: an English turn gets the English marker; only the part whose outcome was unknown carries it', async () => {
    const adapter = telegramAdapter(telegram().baseUrl);
    const { outbox, clock } = outboxWith(() => adapter);
    let n = 0;
    // Part 1 goes through, part 2 is posted but its answer lost.
    telegram().script('POST', /\/sendMessage$/, () => (n++ === 0 ? { pass: true } : { dropAnswer: true }), 2);
    const text = Array.from({ length: 3 }, (_, i) => `section ${i} ${'word '.repeat(700)}`.trim()).join('\n\n');
    const target: OutboundTarget = { channel: 'telegram', account: 'default', chat_id: '5152', chat_type: 'direct' };
    const [id] = await outbox.enqueue(db(), [
      { target, message: { kind: 'reply', text, format: 'plain', final: true }, origin: { inbox_event_id: '77', lang: 'en' } },
    ]);

    await outbox.deliverDue();
    expect(await outbox.get(id!)).toMatchObject({ status: 'queued', parts_done: 1, ambiguity: 'pending', ambiguous_part: 1 });
    clock.advance(300_000);
    await outbox.deliverDue();
    expect(await outbox.get(id!)).toMatchObject({ status: 'sent', ambiguity: 'resent_with_marker' });
    const texts = sentTexts();
    expect(texts[2]).toBe(`(possible duplicate) ${texts[1]}`);
    expect(texts.filter((t) => t.startsWith('(possible duplicate)'))).toHaveLength(1);
    expect(texts[0]!.startsWith('(possible duplicate)')).toBe(false);
  });

  it('a connection that was never made (refused) is not ambiguous: retried without a marker', async () => {
    let adapter = telegramAdapter(`http://127.0.0.1:${await closedPort()}`);
    const { outbox, clock, events } = outboxWith(() => adapter);
    const target: OutboundTarget = { channel: 'telegram', account: 'default', chat_id: '5153', chat_type: 'direct' };
    const [id] = await outbox.enqueue(db(), [{ target, message: { kind: 'reply', text: '已记录', format: 'plain', final: true } }]);

    await outbox.deliverDue();
    expect(await outbox.get(id!)).toMatchObject({ status: 'queued', attempts: 1, ambiguity: null, ambiguous_attempts: 0 });
    adapter = telegramAdapter(telegram().baseUrl);
    clock.advance(300_000);
    await outbox.deliverDue();
    expect(await outbox.get(id!)).toMatchObject({ status: 'sent', ambiguity: null });
    expect(sentTexts()).toEqual(['已记录']);
    expect(events).toEqual([]);
  });

  it('a 5xx answer is ambiguous too (the platform may have posted before failing)', async () => {
    const adapter = telegramAdapter(telegram().baseUrl);
    const { outbox, clock } = outboxWith(() => adapter);
    telegram().script('POST', /\/sendMessage$/, { status: 502, json: { ok: false, error_code: 502, description: 'Bad Gateway' } });
    const target: OutboundTarget = { channel: 'telegram', account: 'default', chat_id: '5154', chat_type: 'direct' };
    const [id] = await outbox.enqueue(db(), [{ target, message: { kind: 'reply', text: '好的', format: 'plain', final: true } }]);
    await outbox.deliverDue();
    expect(await outbox.get(id!)).toMatchObject({ status: 'queued', ambiguity: 'pending', error_code: '502' });
    clock.advance(300_000);
    await outbox.deliverDue();
    expect(sentTexts()).toEqual(['好的', '（可能重复）好的']);
  });

  it("a 5xx whose body is not the API's JSON (a proxy's error page) is ambiguous too", async () => {
    const adapter = telegramAdapter(telegram().baseUrl);
    const { outbox, clock } = outboxWith(() => adapter);
    telegram().script('POST', /\/sendMessage$/, { status: 502, headers: { 'content-type': 'text/html' }, body: '<html><body>502 Bad Gateway</body></html>' });
    const target: OutboundTarget = { channel: 'telegram', account: 'default', chat_id: '5155', chat_type: 'direct' };
    const [id] = await outbox.enqueue(db(), [{ target, message: { kind: 'reply', text: '好的', format: 'plain', final: true } }]);
    await outbox.deliverDue();
    expect(await outbox.get(id!)).toMatchObject({ status: 'queued', ambiguity: 'pending' });
    clock.advance(300_000);
    await outbox.deliverDue();
    expect(sentTexts()).toEqual(['好的', '（可能重复）好的']);
  });

  it('a row taken over from a sender whose lease expired mid-send is pending: the resend carries the marker', async () => {
    const adapter = telegramAdapter(telegram().baseUrl);
    const { outbox, clock } = outboxWith(() => adapter);
    const target: OutboundTarget = { channel: 'telegram', account: 'default', chat_id: '5155', chat_type: 'direct' };
    const [id] = await outbox.enqueue(db(), [{ target, message: { kind: 'reply', text: '报警已确认', format: 'plain', final: true } }]);
    // A replica took it and died during the send.
    await db().query(
      `UPDATE skillgate.outbox_messages SET status = 'sending', attempts = 1, lease_owner = 'dead:1', lease_until = $2::timestamptz WHERE id = $1::bigint`,
      [id, new Date(clock.now() - 1000).toISOString()],
    );
    await outbox.deliverDue();
    expect(await outbox.get(id!)).toMatchObject({ status: 'sent', attempts: 2, ambiguity: 'resent_with_marker', ambiguous_attempts: 1 });
    expect(sentTexts()).toEqual(['（可能重复）报警已确认']);
  });

  it('a message that fails for good while pending keeps `pending` (it may or may not have reached the user)', async () => {
    const adapter = telegramAdapter(telegram().baseUrl);
    const { outbox } = outboxWith(() => adapter, { maxAttempts: 1 });
    telegram().script('POST', /\/sendMessage$/, { dropAnswer: true });
    const target: OutboundTarget = { channel: 'telegram', account: 'default', chat_id: '5156', chat_type: 'direct' };
    const [id] = await outbox.enqueue(db(), [{ target, message: { kind: 'reply', text: '收到', format: 'plain', final: true } }]);
    await outbox.deliverDue();
    expect(await outbox.get(id!)).toMatchObject({ status: 'failed', ambiguity: 'pending', ambiguous_part: 0 });
  });
});
