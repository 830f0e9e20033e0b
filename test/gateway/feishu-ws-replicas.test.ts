/**
 * Two `skillgate serve` processes on one PostgreSQL server with one Feishu app in long-connection
 * mode (docs/operations-delivery.md "One owner per long connection"), against a fake that hands
 * each event to one random open connection and redelivers what was not answered: only the lease
 * holder connects (never two connections at once); SIGKILL the holder and the other connects
 * within 15 s; every message is answered exactly once (a resend under the platform's `uuid` is the
 * same answer).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakePlatform } from '../../adapters/contract/index.ts';
import { startServe, type ServeChild } from '../helpers/cli.ts';
import { serverDatabaseUrl, TEST_DATABASE_URL } from '../helpers/db.ts';
import { until } from '../inbox/helpers.ts';
import { openServerDb } from '../../src/store/open.ts';
import { contentOf, installOpenApi } from '../adapters/feishu/open-api.ts';
import { startFakeFeishuWs } from '../adapters/feishu/fake-ws.ts';

const KEY = Buffer.alloc(32, 9).toString('base64');
const APP_ID = 'cli_a1b2c3d4e5f60718';

describe.runIf(TEST_DATABASE_URL)('Feishu long connection across two replicas', () => {
  it('one replica connects at a time; after SIGKILL of the holder the other connects within 15 s; no message lost or answered twice', async () => {
    const api = await startFakePlatform();
    installOpenApi(api);
    const ws = await startFakeFeishuWs(api, APP_ID);
    const url = await serverDatabaseUrl('_fsws', true);
    const env = {
      DATABASE_URL: url,
      SKILLGATE_SECRET_KEY: KEY,
      FEISHU_APP_ID: APP_ID,
      FEISHU_APP_SECRET: 'fs_secret_do_not_use',
      FEISHU_DOMAIN: api.baseUrl,
      FEISHU_MODE: 'ws',
    };
    const a = startServe({ cwd: mkdtempSync(join(tmpdir(), 'sg-fsa-')), env });
    const b = startServe({ cwd: mkdtempSync(join(tmpdir(), 'sg-fsb-')), env });
    const db = openServerDb(url, { max: 1 });
    const messages: string[] = [];
    // Replies per message as the user sees them: a resend under the same `uuid` (a row taken over
    // after the kill, its first send's outcome unknown) returns the first message and posts
    // nothing (docs/operations-delivery.md "Unknown outcomes"); a second answer has its own uuid.
    const answered = () => {
      const uuids = new Map<string, Set<string>>();
      for (const r of api.calls(/^\/open-apis\/im\/v1\/messages\/(?<id>[^/]+)\/reply$/, 'POST')) {
        const seen = uuids.get(r.params.id!) ?? new Set<string>();
        seen.add(contentOf(r)?.uuid ?? `no uuid ${seen.size}`);
        uuids.set(r.params.id!, seen);
      }
      return new Map([...uuids].map(([id, s]) => [id, s.size]));
    };
    const allAnswered = () => messages.every((m) => answered().has(m));
    try {
      await Promise.all([a.ready, b.ready]);
      await until(() => ws.open() === 1, 'one long connection', 30_000);
      for (let i = 0; i < 6; i++) messages.push(ws.push(`ou_ws_user_${i % 3}`, '/help'));
      await until(allAnswered, 'the first messages answered', 60_000);
      expect(ws.overlaps()).toBe(0);

      const { rows } = await db.query<{ holder: string }>(`SELECT holder FROM skillgate.channel_leases WHERE key = 'feishu:default'`);
      const pid = Number(rows[0]!.holder.split(':')[1]);
      const holder: ServeChild = a.child.pid === pid ? a : b;
      const other: ServeChild = holder === a ? b : a;
      expect(holder.child.pid).toBe(pid);

      for (let i = 0; i < 3; i++) messages.push(ws.push(`ou_ws_user_${i}`, '/help'));
      holder.child.kill('SIGKILL');
      const killedAt = Date.now();
      for (let i = 0; i < 3; i++) messages.push(ws.push(`ou_ws_user_${i}`, '/help'));
      await until(() => ws.connectedAt().some((t) => t > killedAt), 'the other replica connects', 15_000);
      console.info(
        `feishu long-connection takeover after SIGKILL: ${ws.connectedAt().find((t) => t > killedAt)! - killedAt} ms (default lease TTL 10 s)`,
      );
      await until(allAnswered, 'every message answered', 60_000);
      await new Promise((r) => setTimeout(r, 1000)); // a late duplicate would show here
      const counts = answered();
      for (const m of messages) expect(counts.get(m), `message ${m}`).toBe(1);
      expect(ws.overlaps()).toBe(0);
      const lease = await db.query<{ holder: string; generation: string }>(
        `SELECT holder, generation::text FROM skillgate.channel_leases WHERE key = 'feishu:default'`,
      );
      expect(Number(lease.rows[0]!.holder.split(':')[1])).toBe(other.child.pid);
      expect(Number(lease.rows[0]!.generation)).toBe(2);
      const events = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM skillgate.inbox_events WHERE channel = 'feishu'`);
      expect(events.rows[0]!.n).toBe(messages.length);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await db.close();
      await ws.close();
      await api.close();
    }
  }, 120_000);
});
