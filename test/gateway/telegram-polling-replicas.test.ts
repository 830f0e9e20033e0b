/**
 * Two `skillgate serve` processes on one PostgreSQL server with one Telegram bot in polling mode
 * (docs/operations-delivery.md "One owner per long connection"): only the lease holder calls
 * getUpdates (the fake answers 409 to a second concurrent consumer and counts it: none);
 * SIGKILL the holder and the other takes polling over within the documented 15 s; every update
 * is answered exactly once.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe, type ServeChild } from '../helpers/cli.ts';
import { serverDatabaseUrl, TEST_DATABASE_URL } from '../helpers/db.ts';
import { until } from '../inbox/helpers.ts';
import { openServerDb } from '../../src/store/open.ts';
import { POLL_TOKEN, startFakePolling } from '../adapters/telegram/fake-polling.ts';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe.runIf(TEST_DATABASE_URL)('Telegram long polling across two replicas', () => {
  it('one replica polls at a time; after SIGKILL of the holder the other polls within 15 s; no update lost or answered twice', async () => {
    const fake = await startFakePolling();
    const url = await serverDatabaseUrl('_tgpoll', true);
    const env = {
      DATABASE_URL: url,
      SKILLGATE_SECRET_KEY: KEY,
      TELEGRAM_BOT_TOKEN: POLL_TOKEN,
      TELEGRAM_API_ROOT: fake.apiRoot,
      TELEGRAM_MODE: 'polling',
    };
    const a = startServe({ cwd: mkdtempSync(join(tmpdir(), 'sg-tga-')), env });
    const b = startServe({ cwd: mkdtempSync(join(tmpdir(), 'sg-tgb-')), env });
    const db = openServerDb(url, { max: 1 });
    const messages: number[] = [];
    const answered = () => {
      const counts = new Map<number, number>();
      for (const s of fake.sent()) if (s.reply_to !== null) counts.set(s.reply_to, (counts.get(s.reply_to) ?? 0) + 1);
      return counts;
    };
    const allAnswered = () => messages.every((m) => answered().has(m));
    try {
      await Promise.all([a.ready, b.ready]);
      for (let i = 0; i < 6; i++) messages.push(fake.push(1000 + (i % 3), `/help`));
      await until(allAnswered, 'the first updates answered', 60_000);
      expect(fake.conflicts()).toBe(0);

      const { rows } = await db.query<{ holder: string }>(`SELECT holder FROM skillgate.channel_leases WHERE key = 'telegram:default'`);
      const pid = Number(rows[0]!.holder.split(':')[1]);
      const holder: ServeChild = a.child.pid === pid ? a : b;
      const other: ServeChild = holder === a ? b : a;
      expect(holder.child.pid).toBe(pid);

      // Updates queued around the kill: some may have been fetched by the holder and not yet stored.
      for (let i = 0; i < 3; i++) messages.push(fake.push(2000 + i, `/help`));
      holder.child.kill('SIGKILL');
      const killedAt = Date.now();
      for (let i = 0; i < 3; i++) messages.push(fake.push(3000 + i, `/help`));
      await until(() => fake.polls().some((t) => t > killedAt), 'the other replica polls', 15_000);
      console.info(
        `telegram polling takeover after SIGKILL: ${fake.polls().find((t) => t > killedAt)! - killedAt} ms (default lease TTL 10 s)`,
      );
      await until(allAnswered, 'every update answered', 60_000);
      await new Promise((r) => setTimeout(r, 1000)); // a late duplicate would show here
      const counts = answered();
      for (const m of messages) expect(counts.get(m), `message ${m}`).toBe(1);
      expect(fake.conflicts()).toBe(0);
      const lease = await db.query<{ holder: string; generation: string }>(
        `SELECT holder, generation::text FROM skillgate.channel_leases WHERE key = 'telegram:default'`,
      );
      expect(Number(lease.rows[0]!.holder.split(':')[1])).toBe(other.child.pid);
      expect(Number(lease.rows[0]!.generation)).toBe(2);
      const events = await db.query<{ n: number; done: number }>(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'done')::int AS done FROM skillgate.inbox_events WHERE channel = 'telegram'`,
      );
      expect(events.rows[0]).toEqual({ n: messages.length, done: messages.length });
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await db.close();
      await fake.close();
    }
  }, 120_000);
});
