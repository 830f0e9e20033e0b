/**
 * Schedules on our Db (embedded PGlite and the real server): a cron schedule fires through the
 * occurrence ledger (docs/schedules.md) on a driven clock, the run goes through the skill
 * pipeline with chat_mode false, and the result is delivered by calling `notify` /
 * `send_message` by name.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { resolveWalls } from '../../src/config/walls.ts';
import type { SkillServices } from '../../src/executor/skill-call.ts';
import { createLogger } from '../../src/log/logger.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import { migrate } from '../../src/store/migrate.ts';
import { validateAndSave } from '../../src/chain/services.ts';
import { pipelineFire } from '../../src/schedule/fire.ts';
import { withCall } from '../../src/wiring/skill-call.ts';
import { Scheduler, ScheduleError } from '../../src/schedule/scheduler.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { CHAIN_FIXTURES, probeKey, probeState } from '../chain/helpers.ts';

type Delivery = { skill: string; input: Record<string, unknown>; chat_mode: unknown };
const deliveries = (): Delivery[] => (globalThis as unknown as { __chainDeliveries?: Delivery[] }).__chainDeliveries ?? [];

describeEachEngine('schedules', (db) => {
  let services: SkillServices;
  let scheduler: Scheduler | undefined;
  const log = createLogger({ level: 'silent' });
  let now = new Date('2026-05-04T08:00:10Z');

  const start = async (): Promise<Scheduler> => {
    if (scheduler) return scheduler;
    await migrate(db());
    const registry = await discoverSkills([
      { dir: CHAIN_FIXTURES, source: 'shared' },
      { dir: join(CHAIN_FIXTURES, 'delivery'), source: 'shared' },
    ]);
    services = {
      db: db(),
      registry,
      settings: { dataDir: mkdtempSync(join(tmpdir(), 'sg-sched-')), walls: resolveWalls({}), fetchAllow: [], llm: undefined },
      secretKey: randomBytes(32),
      log,
    };
    scheduler = new Scheduler({
      db: db(),
      log,
      mode: 'worker',
      fire: pipelineFire(withCall(services), () => 'demo'),
      clock: () => now,
      autoTick: false,
    });
    await scheduler.start();
    return scheduler;
  };
  afterAll(async () => {
    await scheduler?.stop();
  });

  it('a cron schedule fires through the ledger: the skill ran and its result went to the notify target', async () => {
    const s = await start();
    const run_id = probeKey();
    await s.add({
      name: `every-minute-${run_id}`,
      cron: '* * * * *',
      timezone: 'UTC',
      kind: 'skill',
      target: 'probe',
      input: { run_id, tag: 'cron', value: '早报' },
      deliver_to: 'notify:ops',
      role_id: 'default',
    });
    expect(await s.tick()).toEqual([]); // nothing planned before the next minute
    now = new Date('2026-05-04T08:01:02Z');
    const claimed = await s.tick();
    expect(claimed.map((o) => [o.schedule, o.planned_at.toISOString(), o.catch_up])).toEqual([
      [`every-minute-${run_id}`, '2026-05-04T08:01:00.000Z', false],
    ]);
    await s.idle();
    expect(probeState(run_id).events).toContain('finish:cron');
    const [occ] = await s.occurrences(5, `every-minute-${run_id}`);
    expect(occ).toMatchObject({ status: 'done', catch_up: false, claimed_by: s.holder });
    await expect
      .poll(() => deliveries().find((d) => d.skill === 'notify' && String(d.input.title).includes(run_id)), {
        timeout: 10_000,
        interval: 200,
      })
      .toBeDefined();
    const d = deliveries().find((x) => x.skill === 'notify' && String(x.input.title).includes(run_id))!;
    expect(d.input.target).toBe('ops');
    expect(d.chat_mode).toBe(false);
    await expect
      .poll(async () => (await s.list()).find((x) => x.name === `every-minute-${run_id}`)?.last_ok, { timeout: 10_000 })
      .toBe(true);
    await s.remove(`every-minute-${run_id}`);
  });

  it('D-05: a scheduled chain runs with chat_mode false and its last output goes to a send_message recipient', async () => {
    const s = await start();
    const saved = await validateAndSave(db(), services.registry, {
      name: 'sched_chain',
      description: '定时链',
      input_schema: { type: 'object', properties: { note: { type: 'string' } } },
      steps: [{ skill_name: 'echo', alias: 'e', params: { note: '{note}' } }],
    });
    expect(saved.ok).toBe(true);
    await s.add({
      name: 'daily-chain',
      cron: '0 9 * * *',
      timezone: 'Asia/Shanghai',
      kind: 'chain',
      target: 'sched_chain',
      input: { note: '日报' },
      deliver_to: 'telegram:12345',
      role_id: 'default',
    });
    const outcome = await s.runNow('daily-chain');
    expect(outcome?.ok).toBe(true);
    const last = (outcome!.result as { last: { input: unknown; ctx: { chat_mode: unknown } } }).last;
    expect(last.input).toEqual({ note: '日报' });
    expect(last.ctx.chat_mode).toBe(false);
    const d = deliveries()
      .filter((x) => x.skill === 'send_message')
      .at(-1)!;
    expect(d.input.to).toBe('telegram:12345');
    expect(String(d.input.message)).toContain('定时任务「daily-chain」');
    expect(String(d.input.message)).toContain('日报');
  });

  it('a failing run is delivered as a failure and recorded; a bad cron is refused and nothing is stored; remove drops the cron entry', async () => {
    const s = await start();
    await s.add({
      name: 'always-fails',
      cron: '0 * * * *',
      timezone: 'UTC',
      kind: 'skill',
      target: 'fail',
      input: { reason: 'disk full' },
      deliver_to: 'notify:ops',
      role_id: 'default',
    });
    const outcome = await s.runNow('always-fails');
    expect(outcome?.ok).toBe(false);
    const d = deliveries()
      .filter((x) => x.skill === 'notify')
      .at(-1)!;
    expect(String(d.input.message)).toContain('执行失败');
    expect(String(d.input.message)).toContain('disk full');
    expect((await s.list()).find((x) => x.name === 'always-fails')?.last_ok).toBe(false);

    await expect(
      s.add({
        name: 'bad-cron',
        cron: 'not a cron',
        timezone: 'UTC',
        kind: 'skill',
        target: 'echo',
        input: {},
        deliver_to: '',
        role_id: 'default',
      }),
    ).rejects.toBeInstanceOf(ScheduleError);
    expect((await s.list()).map((x) => x.name)).not.toContain('bad-cron');

    now = new Date(now.getTime() + 3_600_000);
    expect((await s.tick()).filter((o) => o.schedule === 'always-fails')).toHaveLength(1);
    await s.idle();
    expect((await s.occurrences(5, 'always-fails'))[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('disk full') });
    expect(await s.remove('always-fails')).toBe(true);
    expect(await s.occurrences(5, 'always-fails')).toEqual([]);
    expect(await s.remove('always-fails')).toBe(false);
  });
});
