/**
 * The scheduler: schedules from `skillgate.schedules` become pg-boss cron
 * entries (one queue per schedule, `skillgate-schedule-<name>`); in the gateway a worker per
 * queue runs the schedule when pg-boss's timekeeper sends its job. CLI processes use the
 * `writer` mode (no timekeeper, no workers): they write the table and the cron entry and tell
 * a running gateway (NOTIFY `skillgate_schedules` on a server) to sync its workers.
 */
import type PgBoss from 'pg-boss';
import type { Logger } from '../log/logger.ts';
import type { Db } from '../store/db.ts';
import { createBoss, startBoss } from './boss.ts';
import type { FireOutcome } from './fire.ts';
import { deleteSchedule, getSchedule, listSchedules, recordRun, SCHEDULE_NAME_RE, upsertSchedule, type Schedule, type StoredSchedule } from './store.ts';

/** A schedule the scheduler refuses (bad name, cron, kind, target). */
export class ScheduleError extends Error {
  override name = 'ScheduleError';
}

/** NOTIFY channel a writer uses to tell the gateway to sync. */
export const SCHEDULE_CHANNEL = 'skillgate_schedules';

/** The pg-boss queue of a schedule. */
export function queueName(schedule: string): string {
  return `skillgate-schedule-${schedule}`;
}

/** Options of {@link Scheduler}. */
export interface SchedulerOptions {
  db: Db;
  log: Logger;
  /** `worker`: the gateway (timekeeper + one worker per schedule); `writer`: CLI. */
  mode: 'worker' | 'writer';
  /** Runs one schedule (see fire.ts `pipelineFire`); worker mode only. */
  fire?: (s: StoredSchedule) => Promise<FireOutcome>;
  /** Worker polling, seconds (default 5). */
  pollingIntervalSeconds?: number;
  /** pg-boss timekeeper intervals, seconds (tests use 1). */
  cronMonitorIntervalSeconds?: number;
  cronWorkerIntervalSeconds?: number;
  clock?: () => Date;
}

/** Schedules over pg-boss. Call {@link start} first and {@link stop} at the end. */
export class Scheduler {
  private boss?: PgBoss;
  private readonly working = new Set<string>();
  private unlisten?: () => Promise<void>;
  private syncing: Promise<void> = Promise.resolve();

  constructor(private readonly opts: SchedulerOptions) {}

  /** The running pg-boss instance (for inspection). */
  get pgBoss(): PgBoss {
    if (!this.boss) throw new Error('the scheduler is not started');
    return this.boss;
  }

  /** Start pg-boss (installs schema `pgboss` on first use); in worker mode, sync workers and listen for changes. */
  async start(): Promise<void> {
    const worker = this.opts.mode === 'worker';
    this.boss = createBoss(this.opts.db, {
      schedule: worker,
      supervise: worker,
      cronMonitorIntervalSeconds: this.opts.cronMonitorIntervalSeconds,
      cronWorkerIntervalSeconds: this.opts.cronWorkerIntervalSeconds,
    });
    this.boss.on('error', (err: Error) => this.opts.log.error({ err }, 'pg-boss error'));
    await startBoss(this.opts.db, this.boss);
    if (worker) {
      await this.sync();
      this.unlisten = await this.opts.db.listen(SCHEDULE_CHANNEL, () => void this.sync());
    }
  }

  /** Stop workers and pg-boss (waits for running jobs up to pg-boss's timeout). */
  async stop(): Promise<void> {
    await this.unlisten?.();
    await this.syncing.catch(() => undefined);
    await this.boss?.stop({ graceful: true, wait: true, timeout: 10_000 });
    this.boss = undefined;
    this.working.clear();
  }

  /**
   * Add or replace a schedule.
   * @throws ScheduleError for a bad name, kind or cron expression.
   */
  async add(s: Schedule): Promise<void> {
    if (!SCHEDULE_NAME_RE.test(s.name)) throw new ScheduleError(`schedule name "${s.name}" must match ${SCHEDULE_NAME_RE.source}`);
    if (s.kind !== 'skill' && s.kind !== 'chain') throw new ScheduleError('a schedule runs either a skill or a chain');
    if (!s.target.trim()) throw new ScheduleError('a schedule needs the skill or chain to run');
    const boss = this.pgBoss;
    const queue = queueName(s.name);
    if (!(await boss.getQueue(queue))) await boss.createQueue(queue);
    try {
      await boss.schedule(queue, s.cron, { name: s.name }, { tz: s.timezone || 'UTC' });
    } catch (err) {
      throw new ScheduleError(`cron expression "${s.cron}" is not valid: ${(err as Error).message}`);
    }
    await upsertSchedule(this.opts.db, s);
    await this.changed();
  }

  /** Remove a schedule and its cron entry. @returns false when none had that name. */
  async remove(name: string): Promise<boolean> {
    const boss = this.pgBoss;
    const queue = queueName(name);
    const existed = await deleteSchedule(this.opts.db, name);
    if (await boss.getQueue(queue)) {
      await boss.unschedule(queue);
      if (this.working.delete(name)) await boss.offWork(queue);
      // Pending jobs go; the queue itself stays (pg-boss 10's delete_queue fails with a
      // RESTRICT foreign-key error while finished jobs are not yet archived).
      await boss.purgeQueue(queue);
    }
    await this.changed();
    return existed;
  }

  /** Every schedule with its last run. */
  list(): Promise<StoredSchedule[]> {
    return listSchedules(this.opts.db);
  }

  /**
   * Run one schedule now — what the worker does when its cron job arrives (tests call it to
   * drive a tick directly). Records the outcome on the schedule.
   * @returns undefined when the schedule no longer exists.
   */
  async runNow(name: string): Promise<FireOutcome | undefined> {
    const s = await getSchedule(this.opts.db, name);
    if (!s) return undefined;
    if (!this.opts.fire) throw new Error('this scheduler cannot run schedules (writer mode)');
    const outcome = await this.opts.fire(s);
    await recordRun(this.opts.db, name, outcome.ok, outcome.result, (this.opts.clock ?? (() => new Date()))());
    this.opts.log.info({ schedule: name, ok: outcome.ok, delivered: outcome.delivery !== null }, 'schedule ran');
    return outcome;
  }

  /** Make the workers match the table (worker mode). */
  sync(): Promise<void> {
    this.syncing = this.syncing.then(() => this.syncOnce()).catch((err: unknown) => this.opts.log.error({ err }, 'schedule sync failed'));
    return this.syncing;
  }

  private async syncOnce(): Promise<void> {
    if (this.opts.mode !== 'worker' || !this.boss) return;
    const boss = this.boss;
    const names = new Set((await listSchedules(this.opts.db)).map((s) => s.name));
    for (const name of names) {
      if (this.working.has(name)) continue;
      this.working.add(name);
      await boss.work<{ name: string }>(queueName(name), { pollingIntervalSeconds: this.opts.pollingIntervalSeconds ?? 5, batchSize: 1 }, async (jobs) => {
        for (const job of jobs) await this.runNow(job.data.name);
      });
    }
    for (const name of [...this.working]) {
      if (names.has(name)) continue;
      this.working.delete(name);
      await boss.offWork(queueName(name));
    }
  }

  private async changed(): Promise<void> {
    if (this.opts.mode === 'worker') await this.sync();
    else await this.opts.db.notify(SCHEDULE_CHANNEL, 'changed');
  }
}
