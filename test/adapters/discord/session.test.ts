/**
 * The stored gateway session in one process (adapters/discord/session.ts), discord.js against
 * the loopback fake gateway, the state on a real lease row: a dispatch the inbox cannot store
 * is tried again before any later one (a chat's order holds); one given up at a stop holds the
 * stored sequence back with nothing after it stored (the restart RESUMEs before it and stores
 * them in order); a graceful stop keeps the session resumable; once another replica holds the
 * lease, nothing more is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClock,
  createRecordingHost,
  startFakePlatform,
  type FakePlatform,
  type RecordingHost,
} from '../../../adapters/contract/index.ts';
import { DiscordAdapter } from '../../../adapters/discord/index.ts';
import { pgConnectionStateStore } from '../../../src/channel/connection-state.ts';
import { pgLeaseStore } from '../../../src/channel/leases.ts';
import type { AdapterHost } from '../../../src/channel/types.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { migrate } from '../../../src/store/migrate.ts';
import type { Db } from '../../../src/store/db.ts';
import { ENGINES, openTestDb } from '../../helpers/db.ts';
import { until } from '../../inbox/helpers.ts';
import { installDiscord, messageCreate, startFakeGateway, TOKEN, type FakeGateway } from './fake-discord.ts';

const KEY = 'discord:default:0';

for (const engine of ENGINES) {
  describe(`discord stored gateway session [${engine}]`, () => {
    let fake: FakePlatform;
    let gw: FakeGateway;
    let db: Db;
    let recording: RecordingHost;
    const adapters: DiscordAdapter[] = [];
    const refused: string[] = [];
    const newAdapter = () => {
      const a = new DiscordAdapter(
        { account: 'default', token: TOKEN, apiRoot: `${fake.baseUrl}/api`, messageContent: true, publicKey: null, maxRetryDelayMs: 1000 },
        { db, log: createLogger({ level: 'silent' }) },
      );
      adapters.push(a);
      return a;
    };
    /** A host over the real inbox whose session state is the lease row of `holder`/`generation`. */
    /** `failing`: message id → how many times the inbox fails to store it before it can. */
    const hostOf = (holder: string, generation: number, failing: Record<string, number> = {}): AdapterHost => {
      const state = pgConnectionStateStore(db);
      return {
        receive: async (m) => {
          const mid = m.message_id ?? '';
          if ((failing[mid] ?? 0) > 0) {
            failing[mid]!--;
            refused.push(mid);
            throw new Error('inbox unavailable');
          }
          return recording.receive(m);
        },
        notice: (e, m) => recording.notice(e, m),
        connectionState: { load: () => state.load(KEY), save: (v) => state.save(KEY, holder, generation, v) },
      };
    };
    const stored = () => pgConnectionStateStore(db).load(KEY) as Promise<{ session_id: string; seq: number } | null>;
    const resultOf = (id: string) => recording.calls.filter((c) => c.msg.message_id === id).map((c) => c.result);

    beforeAll(async () => {
      gw = await startFakeGateway();
      fake = await startFakePlatform();
      installDiscord(fake, () => gw.url);
      db = await openTestDb(engine);
      await migrate(db);
      await db.query('DELETE FROM skillgate.channel_leases WHERE key = $1', [KEY]);
      recording = createRecordingHost(db, createClock('2026-01-01T00:00:00Z'));
    });
    afterAll(async () => {
      for (const a of adapters) await a.stop().catch(() => undefined);
      await gw?.close();
      await fake?.close();
      await db?.close();
    });

    /** Message ids the host accepted (stored for the first time), in the order it did. */
    const acceptedOrder = () => recording.calls.filter((c) => c.result === 'accepted').map((c) => c.msg.message_id);
    const id = (n: number) => `18700000000000000${String(n).padStart(2, '0')}`;
    const dm = (n: number) => gw.push(messageCreate({ id: id(n), content: `m${n}`, chat: 'direct' }));

    it('a dispatch the inbox cannot store for a while is tried again before any later one: the chat keeps its order', async () => {
      const leases = pgLeaseStore(db);
      const gen = (await leases.acquire(KEY, 'A', 60_000))!;
      const first = newAdapter();
      await first.start(hostOf('A', gen, { [id(2)]: 2 }));
      await gw.identified;
      // READY is dispatch 1; then m1, m2 (the inbox fails twice, e.g. the database restarting), m3.
      for (const n of [1, 2, 3]) dm(n);
      await until(() => resultOf(id(3)).length === 1, 'the three messages stored');
      expect(refused).toEqual([id(2), id(2)]);
      expect(acceptedOrder()).toEqual([id(1), id(2), id(3)]);
      await first.stop();
      expect(await stored()).toEqual({ session_id: 'sess-1', seq: 4, resume_url: gw.url, shard_id: 0, shard_count: 1 });
      expect(gw.resumable('sess-1')).toBe(true); // the graceful stop closed with a resumable code
    });

    it('a dispatch given up at a stop holds the sequence back and nothing after it is stored; the restart RESUMEs before it and stores them in order', async () => {
      const gen = Number(
        (await db.query<{ g: string }>('SELECT generation::text AS g FROM skillgate.channel_leases WHERE key = $1', [KEY])).rows[0]!.g,
      );
      const second = newAdapter();
      await second.start(hostOf('A', gen, { [id(4)]: Infinity }));
      await until(() => gw.received.some((f) => f.op === 6), 'the second adapter resumed');
      dm(4);
      dm(5);
      await until(() => refused.filter((r) => r === id(4)).length >= 2, 'the unstorable dispatch tried again');
      await second.stop();
      expect(resultOf(id(5))).toEqual([]); // not stored ahead of m4
      const held = (await stored())!;
      expect(held.session_id).toBe('sess-1');

      const third = newAdapter();
      await third.start(hostOf('A', gen));
      await until(() => resultOf(id(5)).includes('accepted'), 'm4 and m5 replayed and stored');
      expect(gw.received.filter((f) => f.op === 2)).toHaveLength(1);
      expect(gw.received.filter((f) => f.op === 6).at(-1)?.d).toEqual({ token: TOKEN, session_id: 'sess-1', seq: held.seq });
      expect(acceptedOrder()).toEqual([id(1), id(2), id(3), id(4), id(5)]);

      // Another replica takes the lease over: this one's later writes change nothing.
      const leases = pgLeaseStore(db);
      await db.query(`UPDATE skillgate.channel_leases SET expires_at = now() - interval '1 second' WHERE key = $1`, [KEY]);
      expect(await leases.acquire(KEY, 'B', 60_000)).toBe(gen + 1);
      const atTakeover = await stored();
      dm(6);
      await until(() => resultOf(id(6)).length === 1, 'a dispatch after the takeover');
      await third.stop();
      expect(await stored()).toEqual(atTakeover);
    });
  });
}
