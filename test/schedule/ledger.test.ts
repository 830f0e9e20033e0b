/**
 * The occurrence ledger (docs/schedules.md) across two replicas on one database, with the clock
 * driven: each planned minute fires exactly once; after an outage the `missed` policy decides
 * (`once` one catch-up, `skip` none, `all` each) and every occurrence is recorded; catch-ups run
 * through a bounded pool; abandoned claims are taken over, abandoned runs recorded as failed.
 */
import { expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import type { FireOutcome } from '../../src/schedule/fire.ts';
import { decide } from '../../src/schedule/ledger.ts';
import { Scheduler } from '../../src/schedule/scheduler.ts';
import type { MissedPolicy, StoredSchedule } from '../../src/schedule/store.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';

const log = createLogger({ level: 'silent' });

describeEachEngine('schedule occurrence ledger', (db) => {
  let now = new Date('2026-06-01T10:00:30Z');
  const fires: Array<{ replica: string; schedule: string }> = [];
  const active = new Map<string, number>();
  const peak = new Map<string, number>();
  const fire =
    (replica: string, ms = 0) =>
    async (s: StoredSchedule): Promise<FireOutcome> => {
      fires.push({ replica, schedule: s.name });
      active.set(s.name, (active.get(s.name) ?? 0) + 1);
      peak.set(s.name, Math.max(peak.get(s.name) ?? 0, active.get(s.name)!));
      if (ms) await new Promise((r) => setTimeout(r, ms));
      active.set(s.name, active.get(s.name)! - 1);
      return { ok: true, result: { success: true }, delivery: null };
    };
  const replica = (name: string, opts: { ms?: number; catchUpConcurrency?: number } = {}) =>
    new Scheduler({
      db: db(),
      log,
      mode: 'worker',
      fire: fire(name, opts.ms),
      clock: () => now,
      autoTick: false,
      holder: name,
      catchUpConcurrency: opts.catchUpConcurrency,
    });
  const both = async (...rs: Scheduler[]) => {
    await Promise.all(rs.map((r) => r.tick()));
    await Promise.all(rs.map((r) => r.idle()));
  };
  const ledger = async (schedule: string) =>
    (
      await db().query<{ at: string; status: string; catch_up: boolean }>(
        `SELECT to_char(planned_at AT TIME ZONE 'UTC', 'HH24:MI') AS at, status, catch_up FROM skillgate.schedule_occurrences WHERE schedule = $1 ORDER BY planned_at`,
        [schedule],
      )
    ).rows.map((r) => `${r.at} ${r.status}${r.catch_up ? ' catch-up' : ''}`);

  it('migrates', async () => {
    await migrate(db());
  });

  it('decide: late occurrences follow the policy, on-time ones are claimed', () => {
    const t = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m));
    const times = [t(1), t(2), t(3), t(4)];
    const at = new Date(Date.UTC(2026, 0, 1, 0, 4, 5));
    const show = (p: MissedPolicy) => decide(times, at, p, 60_000).map((d) => `${d.status}${d.catch_up ? '+' : ''}`);
    expect(show('once')).toEqual(['missed', 'missed', 'claimed+', 'claimed']);
    expect(show('skip')).toEqual(['missed', 'missed', 'missed', 'claimed']);
    expect(show('all')).toEqual(['claimed+', 'claimed+', 'claimed+', 'claimed']);
  });

  it('*/1 across two replicas: each minute fired once; after 3 minutes down, once → one catch-up, skip → none, all → three; each recorded', async () => {
    const a = replica('A');
    const b = replica('B');
    for (const missed of ['once', 'skip', 'all'] as const) {
      await a.add({
        name: `every-${missed}`,
        cron: '*/1 * * * *',
        timezone: 'UTC',
        kind: 'skill',
        target: 'echo',
        input: {},
        deliver_to: '',
        role_id: 'default',
        missed,
      });
    }
    for (let m = 1; m <= 5; m++) {
      now = new Date(Date.UTC(2026, 5, 1, 10, m, 1));
      await both(a, b);
    }
    const minutes = ['10:01', '10:02', '10:03', '10:04', '10:05'];
    for (const missed of ['once', 'skip', 'all']) {
      expect(await ledger(`every-${missed}`)).toEqual(minutes.map((x) => `${x} done`));
      expect(fires.filter((f) => f.schedule === `every-${missed}`)).toHaveLength(5);
    }
    // Both gateways stop for 10:06, 10:07, 10:08; fresh processes start at 10:09:05.
    now = new Date(Date.UTC(2026, 5, 1, 10, 9, 5));
    fires.length = 0;
    await both(replica('A2'), replica('B2'));
    const after = (missed: string) => ledger(`every-${missed}`).then((rows) => rows.slice(5));
    expect(await after('once')).toEqual(['10:06 missed', '10:07 missed', '10:08 done catch-up', '10:09 done']);
    expect(await after('skip')).toEqual(['10:06 missed', '10:07 missed', '10:08 missed', '10:09 done']);
    expect(await after('all')).toEqual(['10:06 done catch-up', '10:07 done catch-up', '10:08 done catch-up', '10:09 done']);
    const count = (s: string) => fires.filter((f) => f.schedule === s).length;
    expect([count('every-once'), count('every-skip'), count('every-all')]).toEqual([2, 1, 4]);
    // A tick later in the same minute plans nothing again.
    now = new Date(Date.UTC(2026, 5, 1, 10, 9, 40));
    await both(replica('A3'), replica('B3'));
    expect([count('every-once'), count('every-skip'), count('every-all')]).toEqual([2, 1, 4]);
    for (const missed of ['once', 'skip', 'all']) await a.remove(`every-${missed}`);
  });

  it('a started worker plans on its own timer (the gateway path): a due occurrence runs without a tick call', async () => {
    now = new Date('2026-06-04T00:00:30Z');
    const w = new Scheduler({ db: db(), log, mode: 'worker', fire: fire('W'), clock: () => now, holder: 'W', tickMs: 50 });
    await w.start();
    try {
      await w.add({
        name: 'timer',
        cron: '*/1 * * * *',
        timezone: 'UTC',
        kind: 'skill',
        target: 'echo',
        input: {},
        deliver_to: '',
        role_id: 'default',
      });
      fires.length = 0;
      now = new Date('2026-06-04T00:01:02Z');
      await expect.poll(() => ledger('timer'), { timeout: 20_000 }).toEqual(['00:01 done']);
      expect(fires).toEqual([{ replica: 'W', schedule: 'timer' }]);
      await w.remove('timer');
    } finally {
      await w.stop();
    }
  });

  it('catch-up runs go through a bounded pool (2 at a time by default)', async () => {
    now = new Date('2026-06-02T00:00:30Z');
    const a = replica('A', { ms: 60 });
    await a.add({
      name: 'hourly-all',
      cron: '0 * * * *',
      timezone: 'UTC',
      kind: 'skill',
      target: 'echo',
      input: {},
      deliver_to: '',
      role_id: 'default',
      missed: 'all',
    });
    now = new Date('2026-06-02T06:30:00Z');
    const claimed = await a.tick();
    expect(claimed.map((o) => o.catch_up)).toEqual([true, true, true, true, true, true]);
    await a.idle();
    expect(peak.get('hourly-all')).toBe(2);
    expect((await ledger('hourly-all')).every((r) => r.endsWith('done catch-up'))).toBe(true);
    await a.remove('hourly-all');
  });

  it('a claim whose replica died before starting it is run by another replica; a run whose replica died is recorded failed, not re-run', async () => {
    now = new Date('2026-06-03T00:00:30Z');
    const a = replica('A');
    await a.add({
      name: 'abandoned',
      cron: '0 * * * *',
      timezone: 'UTC',
      kind: 'skill',
      target: 'echo',
      input: {},
      deliver_to: '',
      role_id: 'default',
    });
    await db().query(
      `INSERT INTO skillgate.schedule_occurrences (schedule, planned_at, status, claimed_by, lease_until) VALUES
        ('abandoned', '2026-06-02T22:00:00Z', 'running', 'dead', '2026-06-02T23:00:00Z'),
        ('abandoned', '2026-06-02T23:00:00Z', 'claimed', 'dead', '2026-06-02T23:30:00Z')`,
    );
    fires.length = 0;
    const claimed = await a.tick();
    await a.idle();
    expect(claimed.map((o) => o.planned_at.toISOString())).toEqual(['2026-06-02T23:00:00.000Z']);
    expect(fires).toEqual([{ replica: 'A', schedule: 'abandoned' }]);
    expect(await ledger('abandoned')).toEqual(['22:00 failed', '23:00 done']);
    const { rows } = await db().query<{ error: string | null; claimed_by: string }>(
      `SELECT error, claimed_by FROM skillgate.schedule_occurrences WHERE schedule = 'abandoned' ORDER BY planned_at`,
    );
    expect(rows[0]!.error).toMatch(/stopped before it finished/);
    expect(rows[1]!.claimed_by).toBe('A');
    await a.remove('abandoned');
  });
});
