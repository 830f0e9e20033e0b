/**
 * Two outbox replicas on one PostgreSQL: each with its own connection pool, both
 * delivering at once — every message is sent exactly once and per chat in order, also when
 * both store replies behind heads in flight and each chains its chats' backlogs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverDatabaseUrl, TEST_DATABASE_URL } from '../helpers/db.ts';
import { openServerDb } from '../../src/store/open.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createOutbox } from '../../src/outbox/index.ts';
import { captureLog } from '../inbox/helpers.ts';
import { FakeTelegram, telegramLikeAdapter } from './fakes.ts';

describe.runIf(TEST_DATABASE_URL)('outbox: two replicas on one PostgreSQL', () => {
  const platform = new FakeTelegram();
  beforeAll(() => platform.listen());
  afterAll(() => platform.close());

  it('40 messages in 4 chats delivered by two replicas at once: each sent exactly once, in chat order', async () => {
    const url = await serverDatabaseUrl('_outbox2', true);
    const dbA = openServerDb(url, { max: 4 });
    const dbB = openServerDb(url, { max: 4 });
    try {
      await migrate(dbA);
      const { log } = captureLog();
      const clock = { now: () => Date.now(), sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };
      const mk = (db: typeof dbA, name: string) => {
        const adapter = telegramLikeAdapter(() => platform.url, clock);
        return {
          adapter,
          outbox: createOutbox(db, {
            log,
            instanceId: name,
            batchSize: 3,
            adapterFor: () => adapter,
            rateLimits: { telegram: { perSecond: 10_000 } },
          }),
        };
      };
      const a = mk(dbA, 'replica-a');
      const b = mk(dbB, 'replica-b');
      const items = Array.from({ length: 40 }, (_, i) => ({
        target: { channel: 'telegram', account: 'default', chat_id: `chat${i % 4}` },
        message: { kind: 'reply' as const, text: `chat${i % 4}#${Math.floor(i / 4)}`, format: 'plain' as const },
      }));
      await a.outbox.enqueue(dbA, items);
      const drain = async (o: typeof a.outbox): Promise<void> => {
        while ((await o.backlog()) > 0) await o.deliverDue();
      };
      await Promise.all([drain(a.outbox), drain(b.outbox)]);
      const texts = platform.requests.map((r) => r.text);
      expect(texts).toHaveLength(40);
      expect(new Set(texts).size).toBe(40);
      for (let c = 0; c < 4; c++) {
        expect(texts.filter((t) => t.startsWith(`chat${c}#`))).toEqual(Array.from({ length: 10 }, (_, k) => `chat${c}#${k}`));
      }
      console.info(`two outbox replicas: replica-a sent ${a.adapter.sends.length}, replica-b sent ${b.adapter.sends.length}`);
    } finally {
      await dbA.close();
      await dbB.close();
    }
  });

  it('two running replicas storing 60 replies in 6 chats behind heads in flight: each sent exactly once, in chat order, no poll', async () => {
    const url = await serverDatabaseUrl('_outbox2chain', true);
    const dbA = openServerDb(url, { max: 4 });
    const dbB = openServerDb(url, { max: 4 });
    const slow = { now: () => Date.now(), sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) };
    const mk = (db: typeof dbA, name: string) => {
      const adapter = telegramLikeAdapter(() => platform.url, slow, { beforeSend: () => slow.sleep(3) });
      const outbox = createOutbox(db, {
        log: captureLog().log,
        instanceId: name,
        pollMs: 60_000,
        adapterFor: () => adapter,
        rateLimits: { telegram: { perSecond: 10_000 } },
      });
      return { adapter, outbox };
    };
    const a = mk(dbA, 'chain-a');
    const b = mk(dbB, 'chain-b');
    platform.requests.length = 0;
    try {
      await migrate(dbA);
      a.outbox.start();
      b.outbox.start();
      await new Promise((r) => setTimeout(r, 200)); // both LISTENs in place
      const chats = Array.from({ length: 6 }, (_, c) => `chain${c}`);
      // Per chat one reply after the other, alternately stored by each replica; the chats at once.
      const ids = (
        await Promise.all(
          chats.map(async (chat, c) => {
            const mine: string[] = [];
            for (let k = 0; k < 10; k++) {
              const by = (k + c) % 2 === 0 ? a : b;
              const it = {
                target: { channel: 'telegram', account: 'default', chat_id: chat, chat_type: 'direct' as const },
                message: { kind: 'reply' as const, text: `${chat}#${k}`, format: 'plain' as const },
                origin: { inbox_event_id: `${c}-${k}` },
              };
              mine.push(...(await by.outbox.enqueue(by === a ? dbA : dbB, [it])));
            }
            return mine;
          }),
        )
      ).flat();
      for (const id of ids) expect(await a.outbox.waitFor(id, 20_000)).toBe('sent');
      const texts = platform.requests.map((r) => r.text);
      expect(texts).toHaveLength(60);
      expect(new Set(texts).size).toBe(60);
      for (const chat of chats) {
        expect(texts.filter((t) => t.startsWith(`${chat}#`))).toEqual(Array.from({ length: 10 }, (_, k) => `${chat}#${k}`));
      }
      expect(a.adapter.sends.length + b.adapter.sends.length).toBe(60);
    } finally {
      await a.outbox.stop();
      await b.outbox.stop();
      await dbA.close();
      await dbB.close();
    }
  });
});
