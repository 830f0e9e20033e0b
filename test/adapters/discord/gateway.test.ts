/**
 * One round trip through discord.js against a loopback fake gateway + fake REST:
 * `GET /gateway/bot` → ws URL, HELLO, IDENTIFY (intents + token), READY, dispatch
 * MESSAGE_CREATE → the real inbox, the reply sent over REST; a dispatch redelivered five times is
 * answered once (dedup by message id through the inbox); mutated dispatches → no crash, no
 * unhandled rejection, the connection still works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRecordingHost,
  createClock,
  mutate,
  prng,
  startFakePlatform,
  type FakePlatform,
  type RecordingHost,
} from '../../../adapters/contract/index.ts';
import { DiscordAdapter } from '../../../adapters/discord/index.ts';
import { intentsFor } from '../../../adapters/discord/wire.ts';
import { IntentsBitField } from 'discord.js';
import { createLogger } from '../../../src/log/logger.ts';
import { migrate } from '../../../src/store/migrate.ts';
import type { Db } from '../../../src/store/db.ts';
import { ENGINES, openTestDb } from '../../helpers/db.ts';
import { BOT, DM_CHANNEL, installDiscord, messageBody, messageCreate, startFakeGateway, TOKEN, type FakeGateway } from './fake-discord.ts';

async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000; // hang guard only
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

for (const engine of ENGINES) {
  describe(`discord gateway round trip [${engine}]`, () => {
    let fake: FakePlatform;
    let gw: FakeGateway;
    let db: Db;
    let host: RecordingHost;
    let adapter: DiscordAdapter;
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => void rejections.push(e);

    beforeAll(async () => {
      process.on('unhandledRejection', onRejection);
      gw = await startFakeGateway();
      fake = await startFakePlatform();
      installDiscord(fake, () => gw.url);
      db = await openTestDb(engine);
      await migrate(db);
      const clock = createClock('2026-01-01T00:00:00Z');
      host = createRecordingHost(db, clock, () => adapter);
      adapter = new DiscordAdapter(
        { account: 'default', token: TOKEN, apiRoot: `${fake.baseUrl}/api`, messageContent: true, publicKey: null, maxRetryDelayMs: 1000 },
        { db, log: createLogger({ level: 'silent' }), now: () => clock.now() },
      );
      await adapter.start(host);
      await gw.identified;
    });
    afterAll(async () => {
      await adapter?.stop();
      await gw?.close();
      await fake?.close();
      await db?.close();
      process.off('unhandledRejection', onRejection);
    });

    it('IDENTIFY carries the token and the intents; GET /gateway/bot was asked for the URL', () => {
      const id = gw.received.find((f) => f.op === 2)?.d as { token?: string; intents?: number };
      expect(id.token).toBe(TOKEN);
      expect(id.intents).toBe(new IntentsBitField(intentsFor(true)).bitfield);
      expect(fake.calls('/api/v10/gateway/bot').length).toBeGreaterThanOrEqual(1);
    });

    it('a DM MESSAGE_CREATE reaches the inbox and the reply goes out over REST', async () => {
      const before = host.accepted().length;
      gw.push(messageCreate({ id: '1800000000000000001', content: '查询 工单 42', chat: 'direct', s: 3 }));
      await until(() => host.accepted().length > before, 'the message accepted');
      const msg = host.accepted().at(-1)!;
      expect(msg).toMatchObject({
        dedupe_key: 'discord:message:1800000000000000001',
        raw_input: '查询 工单 42',
        chat: { id: DM_CHANNEL, type: 'direct' },
        addressed_to_bot: true,
      });
      fake.reset();
      const res = await adapter.send(
        { channel: 'discord', account: 'default', chat_id: msg.chat.id },
        { kind: 'reply', text: '工单 42：**已完成**', format: 'markdown', reply_to: msg.message_id },
      );
      expect(res.ok).toBe(true);
      const sent = fake.calls(/\/channels\/\d+\/messages$/);
      expect(sent).toHaveLength(1);
      expect(messageBody(sent[0]!)).toMatchObject({
        content: '工单 42：**已完成**',
        message_reference: { message_id: '1800000000000000001' },
        allowed_mentions: { parse: [] },
      });
    });

    it('one dispatch redelivered five times is accepted once (dedup by message id)', async () => {
      const frame = messageCreate({ id: '1800000000000000002', content: 'five times', chat: 'direct', s: 4 });
      const before = host.calls.length;
      for (let i = 0; i < 5; i++) gw.push(frame);
      await until(() => host.calls.length >= before + 5, 'five deliveries handled');
      const calls = host.calls.slice(before);
      expect(calls.filter((c) => c.result === 'accepted')).toHaveLength(1);
      expect(calls.filter((c) => c.result === 'duplicate')).toHaveLength(4);
    });

    it('300 mutated dispatches through the gateway → no crash, no unhandled rejection, still connected', async () => {
      const rnd = prng(8);
      const seeds = [
        messageCreate({ id: '1800000000000000003', content: `<@${BOT.id}> hi`, chat: 'group', mentions: [{ ...BOT, bot: true }] }),
        messageCreate({
          id: '1800000000000000004',
          content: 'file',
          chat: 'direct',
          attachments: [{ id: '9', filename: '报告.pdf', url: 'https://cdn.example/x', size: 3, content_type: 'application/pdf' }],
        }),
        {
          op: 0,
          t: 'INTERACTION_CREATE',
          s: 5,
          d: {
            id: '1900000000000000001',
            token: 't',
            type: 3,
            channel_id: DM_CHANNEL,
            user: { id: '5', username: 'u' },
            data: { custom_id: 'confirm:tok', component_type: 2 },
          },
        },
      ];
      for (let i = 0; i < 300; i++) {
        const seed = Buffer.from(JSON.stringify(seeds[i % seeds.length]));
        const m = mutate(seed, rnd).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(m);
        } catch {
          continue; // the gateway only sends JSON frames
        }
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
          gw.push(JSON.stringify({ ...(parsed as Record<string, unknown>), op: 0 }));
      }
      await new Promise((r) => setTimeout(r, 300));
      const before = host.accepted().length;
      gw.push(messageCreate({ id: '1800000000000000099', content: 'still alive', chat: 'direct', s: 999 }));
      await until(() => host.accepted().some((m) => m.raw_input === 'still alive'), 'a message after the fuzz');
      expect(host.accepted().length).toBeGreaterThan(before);
      expect(rejections.map((e) => (e as Error).stack?.split('\n').slice(0, 4).join(' | '))).toEqual([]);
    });
  });
}
