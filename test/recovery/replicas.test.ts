/**
 * Crash recovery on the server engine (docs/recovery.md), real processes: two replicas on one
 * PostgreSQL; `kill -9` of the one running a skill. The other takes its work over once the dead
 * one's heartbeat is older than the takeover time — long before the dead lease would have
 * expired — tells the person with a retry button instead of calling the skill again, answers
 * a new message of the chat, and runs the skill once more on the button. A restart on the same
 * host (the old pid gone) takes over at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakePlatform } from '../../adapters/contract/index.ts';
import { serverDatabaseUrl, TEST_DATABASE_URL } from '../helpers/db.ts';
import { gatewayEnv, pressButton, runs, sendText, sentTo, spawnGateway, startTelegram, until, type Gw } from './helpers.ts';

const KEY = Buffer.alloc(32, 9).toString('base64');

interface Row {
  status: string;
  lease_owner: string | null;
  lease_until: Date | null;
  processed_at: Date | null;
  started_call: { skill: string } | null;
}

describe.runIf(TEST_DATABASE_URL)('kill -9 of a server replica during a skill', () => {
  let telegram: FakePlatform;
  let dir: string;
  let url: string;
  let client: pg.Client;
  const gws: Gw[] = [];
  beforeAll(async () => {
    telegram = await startTelegram();
    dir = mkdtempSync(join(tmpdir(), 'sg-replicas-'));
    url = await serverDatabaseUrl('_recovery', true);
  });
  afterAll(async () => {
    for (const g of gws) if (g.child.exitCode === null && g.child.signalCode === null) g.child.kill('SIGKILL');
    await client?.end();
    await telegram?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const row = async (title: string): Promise<Row> =>
    (
      await client.query<Row>(
        `SELECT status, lease_owner, lease_until, processed_at, started_call FROM skillgate.inbox_events WHERE payload->>'raw_input' = $1`,
        [`/slow_ticket seconds=8 title=${title}`],
      )
    ).rows[0]!;

  it('the other replica takes the work over by heartbeat, asks, answers the chat, and retries on the button', async () => {
    const runsFile = join(dir, 'runs.jsonl');
    const env = gatewayEnv(telegram, runsFile, { DATABASE_URL: url, SKILLGATE_SECRET_KEY: KEY, SKILLGATE_DATA_DIR: join(dir, 'data') });
    const a = spawnGateway(env);
    gws.push(a);
    const portA = await a.ready;
    const b = spawnGateway(env);
    gws.push(b);
    const portB = await b.ready;
    client = new pg.Client({ connectionString: url });
    await client.connect();
    const user = 4242003;

    await sendText(portA, user, '/slow_ticket seconds=8 title=C');
    await until(() => runs(runsFile).length === 1, 60_000, 'the skill started', a.stderr);
    expect(runs(runsFile)[0]!.pid).toBe(a.child.pid);
    a.child.kill('SIGKILL');
    await a.exited;
    const left = await row('C');
    expect(left.status).toBe('processing');
    expect(left.started_call?.skill).toBe('slow_ticket');
    const deadLeaseUntil = new Date(left.lease_until!).getTime();

    await until(
      () => sentTo(telegram, user).some((m) => m.text.includes('slow_ticket') && m.text.includes('重启') && m.buttons.length > 0),
      60_000,
      'restart notice from the other replica',
      b.stderr,
    );
    expect(b.stderr()).toMatch(/work of a stopped gateway process taken over \(heartbeat stopped\)/);
    const taken = await row('C');
    expect(taken.status).toBe('done');
    expect(new Date(taken.processed_at!).getTime()).toBeLessThan(deadLeaseUntil);
    expect(runs(runsFile)).toHaveLength(1);

    await sendText(portB, user, '/help');
    await until(() => sentTo(telegram, user).some((m) => m.text.includes('/slow_ticket')), 60_000, 'the /help answer', b.stderr);
    const notice = sentTo(telegram, user).find((m) => m.text.includes('重启'))!;
    await pressButton(portB, user, notice.buttons[0]!, 1);
    await until(() => runs(runsFile).length === 2, 60_000, 'the skill ran again', b.stderr);
    await until(
      () => sentTo(telegram, user).some((m) => m.text.includes('工单「C」已创建')),
      60_000,
      'the retried call answered',
      b.stderr,
    );
    expect(runs(runsFile)[1]!.pid).toBe(b.child.pid);

    // A restart on this host: the killed process's pid no longer runs, so its work is taken over at start.
    const user2 = 4242004;
    await sendText(portB, user2, '/slow_ticket seconds=8 title=D');
    await until(() => runs(runsFile).length === 3, 60_000, 'the skill started on B', b.stderr);
    b.child.kill('SIGKILL');
    await b.exited;
    const leftD = await row('D');
    expect(leftD.status).toBe('processing');
    const c = spawnGateway(env);
    gws.push(c);
    await c.ready;
    expect(c.stderr()).toMatch(/work of a stopped gateway process taken over \(no longer running on this host/);
    await until(
      () => sentTo(telegram, user2).some((m) => m.text.includes('重启') && m.buttons.length > 0),
      60_000,
      'restart notice after the restart',
      c.stderr,
    );
    expect(runs(runsFile)).toHaveLength(3);
    c.child.kill('SIGTERM');
    expect((await c.exited).code).toBe(0);
  }, 240_000);
});
