/**
 * Crash recovery with real processes (docs/recovery.md): `kill -9` of `skillgate serve` while a
 * skill with a side effect runs, then a restart on the same embedded data dir. The dead
 * process's lease is taken over at start (the row is handled long before the lease it held
 * would have expired), the interrupted skill is not run again blindly (its side effect
 * happened once), the person gets the restart notice with a retry button, pressing it runs the
 * skill once more, and a new message in the chat is answered.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakePlatform } from '../../adapters/contract/index.ts';
import { openEmbeddedDb } from '../../src/store/open.ts';
import { gatewayEnv, pressButton, runs, sendText, sentTo, spawnGateway, startTelegram, until, type Gw } from './helpers.ts';

const USER = 4242001;

/** The inbox row of the slow_ticket message. */
interface Row {
  status: string;
  lease_until: Date | null;
  processed_at: Date | null;
  started_call: { skill: string; input: Record<string, unknown> } | null;
}

async function readRow(dataDir: string): Promise<Row> {
  const db = await openEmbeddedDb(dataDir);
  try {
    const { rows } = await db.query<Row>(
      `SELECT status, lease_until, processed_at, started_call FROM skillgate.inbox_events WHERE payload->>'raw_input' LIKE '/slow_ticket%' ORDER BY id LIMIT 1`,
    );
    return rows[0]!;
  } finally {
    await db.close();
  }
}

describe('kill -9 during a skill, restart on the same embedded data dir', () => {
  let telegram: FakePlatform;
  let dir: string;
  const gws: Gw[] = [];
  beforeAll(async () => {
    telegram = await startTelegram();
    dir = mkdtempSync(join(tmpdir(), 'sg-recovery-'));
  });
  afterAll(async () => {
    for (const g of gws) if (g.child.exitCode === null && g.child.signalCode === null) g.child.kill('SIGKILL');
    await telegram?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes the lease over at once, asks before running the skill again, and runs it once more on the button', async () => {
    const runsFile = join(dir, 'runs.jsonl');
    const dataDir = join(dir, 'data');
    const env = gatewayEnv(telegram, runsFile, { SKILLGATE_DATA_DIR: dataDir });

    const first = spawnGateway(env);
    gws.push(first);
    const port1 = await first.ready;
    await sendText(port1, USER, '/slow_ticket seconds=8 title=A');
    await until(() => runs(runsFile).length === 1, 60_000, 'the skill started', first.stderr);
    first.child.kill('SIGKILL');
    await first.exited;

    // What the dead process left: the event processing under its lease, the call recorded as started.
    const left = await readRow(dataDir);
    expect(left.status).toBe('processing');
    expect(left.started_call).toEqual({ skill: 'slow_ticket', input: { seconds: 8, title: 'A' } });
    const deadLeaseUntil = new Date(left.lease_until!).getTime();

    const second = spawnGateway(env);
    gws.push(second);
    const port2 = await second.ready;
    await sendText(port2, USER, '/help');
    // The restart notice, with a button to run it again; then the new message's answer.
    await until(
      () => sentTo(telegram, USER).some((m) => m.text.includes('slow_ticket') && m.text.includes('重启') && m.buttons.length > 0),
      60_000,
      'restart notice',
      second.stderr,
    );
    await until(() => sentTo(telegram, USER).some((m) => m.text.includes('/slow_ticket')), 60_000, 'the /help answer', second.stderr);
    expect(runs(runsFile)).toHaveLength(1);
    const notice = sentTo(telegram, USER).find((m) => m.text.includes('重启'))!;
    expect(second.stderr()).toMatch(/work of a stopped gateway process taken over/);

    await pressButton(port2, USER, notice.buttons[0]!, 1);
    await until(() => runs(runsFile).length === 2, 60_000, 'the skill ran again', second.stderr);
    await until(
      () => sentTo(telegram, USER).some((m) => m.text.includes('工单「A」已创建')),
      60_000,
      'the retried call answered',
      second.stderr,
    );
    expect(runs(runsFile).map((r) => r.title)).toEqual(['A', 'A']);
    expect(runs(runsFile)[1]!.pid).toBe(second.child.pid);

    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    // Taken over at start, not waited out: handled before the dead process's lease would have ended.
    const after = await readRow(dataDir);
    expect(after.status).toBe('done');
    expect(new Date(after.processed_at!).getTime()).toBeLessThan(deadLeaseUntil);
  }, 180_000);
});
