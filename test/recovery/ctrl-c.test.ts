/**
 * A bounded, talkative stop (docs/recovery.md): one Ctrl-C to `npm start` (the terminal sends
 * SIGINT to the whole process group; npm relays it too) while a 60 s skill runs. The gateway
 * counts it as one press, says which skill it waits for, gives up after
 * SKILLGATE_SHUTDOWN_GRACE_SEC, names the skill it aborted, exits cleanly without a
 * listener-leak warning, and the next start handles the turn as after a crash.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakePlatform } from '../../adapters/contract/index.ts';
import { gatewayEnv, runs, sendText, sentTo, spawnGateway, startTelegram, until, type Gw } from './helpers.ts';

const USER = 4242002;

describe('Ctrl-C under npm start during a 60 s skill', () => {
  let telegram: FakePlatform;
  let dir: string;
  const gws: Gw[] = [];
  beforeAll(async () => {
    telegram = await startTelegram();
    dir = mkdtempSync(join(tmpdir(), 'sg-ctrlc-'));
  });
  afterAll(async () => {
    for (const g of gws) if (g.child.exitCode === null && g.child.signalCode === null) g.child.kill('SIGKILL');
    await telegram?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('one press: waits the grace, aborts the named skill, exits; the next start offers to run it again', async () => {
    const runsFile = join(dir, 'runs.jsonl');
    const env = gatewayEnv(telegram, runsFile, { SKILLGATE_DATA_DIR: join(dir, 'data'), SKILLGATE_SHUTDOWN_GRACE_SEC: '2' });
    const first = spawnGateway(env, { npm: true });
    gws.push(first);
    const port = await first.ready;
    await sendText(port, USER, '/slow_ticket seconds=60 title=B');
    await until(() => runs(runsFile).length === 1, 60_000, 'the skill started', first.stderr);
    process.kill(-first.child.pid!, 'SIGINT'); // what a terminal's Ctrl-C does: the whole group
    // npm relays the press as a second copy on some versions and timings; send it ourselves so
    // the same-press rule is exercised whatever this npm does.
    await new Promise((r) => setTimeout(r, 100));
    process.kill(-first.child.pid!, 'SIGINT');
    await first.exited;
    const log = first.stderr() + first.stdout();
    expect(log).toMatch(/shutting down: waiting at most 2 s/);
    expect(log).toMatch(/waiting up to 2 s for 1 running turn\(s\): slow_ticket/);
    expect(log).toMatch(/aborted 1 turn\(s\): slow_ticket/);
    expect(log).toMatch(/"msg":"stopped"/);
    expect(log).not.toMatch(/forced exit/);
    expect(log).not.toMatch(/MaxListenersExceededWarning/);
    expect(log.match(/"msg":"shutting down/g)).toHaveLength(1);
    expect(log).toMatch(/the same stop request again/); // the relayed copy, not counted

    // The next start, with a long grace: a second, deliberate signal forces the exit.
    const second = spawnGateway({ ...env, SKILLGATE_SHUTDOWN_GRACE_SEC: '120' });
    gws.push(second);
    const port2 = await second.ready;
    await until(
      () => sentTo(telegram, USER).some((m) => m.text.includes('slow_ticket') && m.text.includes('重启') && m.buttons.length > 0),
      60_000,
      'restart notice',
      second.stderr,
    );
    expect(runs(runsFile)).toHaveLength(1);
    await sendText(port2, USER + 1, '/slow_ticket seconds=60 title=F');
    await until(() => runs(runsFile).length === 2, 60_000, 'the second skill started', second.stderr);
    second.child.kill('SIGTERM');
    await until(() => /waiting up to 120 s for 1 running turn/.test(second.stderr()), 60_000, 'the stop began', second.stderr);
    await new Promise((r) => setTimeout(r, 1500)); // a separate press, not npm's relayed copy
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(130);
    expect(second.stderr()).toMatch(/forced exit during shutdown/);
  }, 240_000);
});
