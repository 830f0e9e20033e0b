/**
 * The stored gateway session in one process (adapters/discord/session.ts), discord.js against
 * the loopback fake gateway, the state on a real lease row: the stored sequence never passes a
 * dispatch the inbox could not store (a restart RESUMEs from before it and gets it again); a
 * graceful stop keeps the session resumable; once another replica holds the lease, nothing
 * more is written.
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
    const hostOf = (holder: string, generation: number, refuse?: string): AdapterHost => {
      const state = pgConnectionStateStore(db);
      return {
        receive: async (m) => {
          if (m.message_id === refuse) {
            refused.push(m.message_id);
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

    it('a dispatch the inbox could not store holds the stored sequence back; the restart RESUMEs before it and stores it', async () => {
      const leases = pgLeaseStore(db);
      const gen = (await leases.acquire(KEY, 'A', 60_000))!;
      const first = newAdapter();
      await first.start(hostOf('A', gen, '1870000000000000002'));
      await gw.identified;
      // READY is dispatch 1; then 2 (stored), 3 (refused by the inbox), 4 (stored).
      for (const n of [1, 2, 3]) gw.push(messageCreate({ id: `187000000000000000${n}`, content: `m${n}`, chat: 'direct' }));
      await until(() => recording.calls.length === 2 && refused.length === 1, 'three dispatches handled');
      expect(refused).toEqual(['1870000000000000002']);
      await first.stop();
      expect(await stored()).toEqual({ session_id: 'sess-1', seq: 2, resume_url: gw.url, shard_id: 0, shard_count: 1 });
      expect(gw.resumable('sess-1')).toBe(true); // the graceful stop closed with a resumable code

      const second = newAdapter();
      await second.start(hostOf('A', gen));
      await until(() => resultOf('1870000000000000002').includes('accepted'), 'the refused dispatch replayed and stored');
      expect(gw.received.filter((f) => f.op === 2)).toHaveLength(1);
      expect(gw.received.find((f) => f.op === 6)?.d).toEqual({ token: TOKEN, session_id: 'sess-1', seq: 2 });
      await until(() => resultOf('1870000000000000003').length === 2, 'the later one replayed');
      expect(resultOf('1870000000000000003')).toEqual(['accepted', 'duplicate']);
      expect(resultOf('1870000000000000001')).toEqual(['accepted']);

      // Another replica takes the lease over: this one's later writes change nothing.
      await db.query(`UPDATE skillgate.channel_leases SET expires_at = now() - interval '1 second' WHERE key = $1`, [KEY]);
      expect(await leases.acquire(KEY, 'B', 60_000)).toBe(gen + 1);
      const atTakeover = await stored();
      gw.push(messageCreate({ id: '1870000000000000004', content: 'm4', chat: 'direct' }));
      await until(() => resultOf('1870000000000000004').length === 1, 'a dispatch after the takeover');
      await second.stop();
      expect(await stored()).toEqual(atTakeover);
    });
  });
}
