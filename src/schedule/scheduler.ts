/**
 * The scheduler (docs/schedules.md): schedules from `skillgate.schedules`, occurrences in the
 * ledger (ledger.ts). In the gateway (`worker` mode) every replica ticks: it plans each schedule
 * up to now — the replica whose transaction inserts an occurrence's row is the one that runs it
 * — takes over claims whose claimer died before starting, and runs what it claimed. Missed
 * occurrences follow the schedule's `missed` policy; catch-up runs go through a bounded pool.
 * CLI processes and the console use the `writer` mode: they only write the table.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
import type { Db } from '../store/db.ts';
import { cronProblem } from './cron.ts';
import type { FireOutcome } from './fire.ts';
import {
  extendOccurrence,
  finishOccurrence,
  planSchedule,
  recentOccurrences,
  recoverAbandoned,
  startOccurrence,
  type Occurrence,
  type PlanLimits,
} from './ledger.ts';
import {
  deleteSchedule,
  getSchedule,
  listSchedules,
  MISSED_POLICIES,
  recordRun,
  SCHEDULE_NAME_RE,
  upsertSchedule,
  type Schedule,
  type StoredSchedule,
} from './store.ts';

export type { Occurrence, OccurrenceStatus } from './ledger.ts';

/** A schedule the scheduler refuses (bad name, cron, kind, target, missed policy). */
export class ScheduleError extends Error {
  override name = 'ScheduleError';
}

/** NOTIFY channel a writer uses to tell the gateway a schedule changed (it plans at once). */
export const SCHEDULE_CHANNEL = 'skillgate_schedules';

/** Defaults (docs/schedules.md). */
export const SCHEDULE_DEFAULTS = {
  /** How often a replica plans, ms. */
  tickMs: 5_000,
  /** An occurrence planned later than this after its time is missed, ms. */
  graceMs: 60_000,
  /** Catch-up runs at once per replica. */
  catchUpConcurrency: 2,
  /** Most occurrences planned per schedule in one tick (a longer outage records only the latest). */
  maxPlanned: 1_000,
  /** A claim not started within this is taken over by another replica, ms. */
  claimMs: 60_000,
  /** A running occurrence's lease (renewed every third of it while it runs), ms. */
  runLeaseMs: 60_000,
} as const;

/** Options of {@link Scheduler}. */
export interface SchedulerOptions {
  db: Db;
  log: Logger;
  /** `worker`: the gateway (plans and runs); `writer`: CLI and console. */
  mode: 'worker' | 'writer';
  /** Runs one schedule (see fire.ts `pipelineFire`); worker mode only. */
  fire?: (s: StoredSchedule) => Promise<FireOutcome>;
  /** The clock of planning and recording (tests drive it). */
  clock?: () => Date;
  /** Ticks on a timer (default true in worker mode); false when a test calls {@link tick}. */
  autoTick?: boolean;
  tickMs?: number;
  graceMs?: number;
  catchUpConcurrency?: number;
  maxPlanned?: number;
  claimMs?: number;
  runLeaseMs?: number;
  /** This replica's id in the ledger (default host:pid:random). */
  holder?: string;
}

/** Schedules with an occurrence ledger. Call {@link start} first and {@link stop} at the end. */
export class Scheduler {
  readonly holder: string;
  private readonly clock: () => Date;
  private readonly limits: PlanLimits;
  private readonly running = new Set<Promise<void>>();
  private readonly catchUpQueue: Array<() => void> = [];
  private catchUpActive = 0;
  private timer?: NodeJS.Timeout;
  private ticking: Promise<unknown> = Promise.resolve();
  private unlisten?: () => Promise<void>;
  private stopped = false;

  constructor(private readonly opts: SchedulerOptions) {
    this.holder = opts.holder ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.clock = opts.clock ?? (() => new Date());
    this.limits = {
      graceMs: opts.graceMs ?? SCHEDULE_DEFAULTS.graceMs,
      maxPlanned: opts.maxPlanned ?? SCHEDULE_DEFAULTS.maxPlanned,
      claimMs: opts.claimMs ?? SCHEDULE_DEFAULTS.claimMs,
    };
  }

  /** Worker mode: plan now, then every tick, and at once when a writer NOTIFYs a change. */
  async start(): Promise<void> {
    this.stopped = false;
    if (this.opts.mode !== 'worker' || this.opts.autoTick === false) return;
    const loop = () => {
      if (this.stopped) return;
      void this.tick().finally(() => {
        if (!this.stopped) this.timer = setTimeout(loop, this.opts.tickMs ?? SCHEDULE_DEFAULTS.tickMs);
      });
    };
    this.unlisten = await this.opts.db.listen(SCHEDULE_CHANNEL, () => void this.tick());
    loop();
  }

  /** Stop ticking and wait for the runs under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.unlisten?.();
    await this.ticking.catch(() => undefined);
    await this.idle();
  }

  /** Resolves once no run of this replica is under way. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /**
   * Add or replace a schedule.
   * @throws ScheduleError for a bad name, kind, cron expression or missed policy.
   */
  async add(s: Schedule): Promise<void> {
    if (!SCHEDULE_NAME_RE.test(s.name)) throw new ScheduleError(`schedule name "${s.name}" must match ${SCHEDULE_NAME_RE.source}`);
    if (s.kind !== 'skill' && s.kind !== 'chain') throw new ScheduleError('a schedule runs either a skill or a chain');
    if (!s.target.trim()) throw new ScheduleError('a schedule needs the skill or chain to run');
    if (s.missed !== undefined && !MISSED_POLICIES.includes(s.missed))
      throw new ScheduleError(`missed must be one of ${MISSED_POLICIES.join(', ')}`);
    const problem = cronProblem(s.cron, s.timezone || 'UTC');
    if (problem) throw new ScheduleError(`cron expression "${s.cron}" is not valid: ${problem}`);
    await upsertSchedule(this.opts.db, { ...s, timezone: s.timezone || 'UTC' }, this.clock());
    await this.changed();
  }

  /** Remove a schedule and its ledger. @returns false when none had that name. */
  async remove(name: string): Promise<boolean> {
    const existed = await deleteSchedule(this.opts.db, name);
    await this.changed();
    return existed;
  }

  /** Every schedule with its last run. */
  list(): Promise<StoredSchedule[]> {
    return listSchedules(this.opts.db);
  }

  /** The latest `limit` occurrences per schedule, newest first. */
  occurrences(limit = 20, schedule?: string): Promise<Occurrence[]> {
    return recentOccurrences(this.opts.db, limit, schedule);
  }

  /**
   * Plan every schedule up to the clock's now, take over abandoned claims, and start the runs
   * this replica claimed (on-time ones at once, catch-ups through the bounded pool). Resolves
   * once planned; {@link idle} waits for the runs.
   * @returns the occurrences this replica claimed.
   */
  tick(): Promise<Occurrence[]> {
    const next = this.ticking.catch(() => undefined).then(() => this.tickOnce());
    this.ticking = next;
    return next.catch((err: unknown) => {
      this.opts.log.error({ err }, 'schedule planning failed');
      return [];
    });
  }

  private async tickOnce(): Promise<Occurrence[]> {
    if (this.opts.mode !== 'worker') return [];
    const now = this.clock();
    const claimed = await recoverAbandoned(this.opts.db, now, this.holder, this.limits.claimMs);
    for (const s of await listSchedules(this.opts.db))
      claimed.push(...(await planSchedule(this.opts.db, s.name, now, this.holder, this.limits)));
    for (const o of claimed) this.track(o.catch_up ? this.pooled(() => this.runOccurrence(o)) : this.runOccurrence(o));
    return claimed;
  }

  private track(p: Promise<void>): void {
    const t = p.catch((err: unknown) => this.opts.log.error({ err }, 'schedule run failed')).finally(() => this.running.delete(t));
    this.running.add(t);
  }

  private async pooled(fn: () => Promise<void>): Promise<void> {
    const max = Math.max(1, this.opts.catchUpConcurrency ?? SCHEDULE_DEFAULTS.catchUpConcurrency);
    if (this.catchUpActive >= max) await new Promise<void>((r) => this.catchUpQueue.push(r));
    this.catchUpActive++;
    try {
      await fn();
    } finally {
      this.catchUpActive--;
      this.catchUpQueue.shift()?.();
    }
  }

  /** Run one claimed occurrence and record its outcome in the ledger and on the schedule. */
  private async runOccurrence(o: Occurrence): Promise<void> {
    const db = this.opts.db;
    const leaseMs = this.opts.runLeaseMs ?? SCHEDULE_DEFAULTS.runLeaseMs;
    if (!(await startOccurrence(db, o, this.holder, this.clock(), leaseMs))) return;
    const beat = setInterval(
      () => void extendOccurrence(db, o, this.holder, new Date(this.clock().getTime() + leaseMs)).catch(() => undefined),
      Math.max(1000, leaseMs / 3),
    );
    try {
      const s = await getSchedule(db, o.schedule);
      if (!s) return await finishOccurrence(db, o, this.holder, false, null, 'the schedule was removed', this.clock());
      let outcome: FireOutcome;
      try {
        outcome = await this.fire(s);
      } catch (err) {
        await finishOccurrence(db, o, this.holder, false, null, (err as Error).message, this.clock());
        throw err;
      }
      const at = this.clock();
      await finishOccurrence(
        db,
        o,
        this.holder,
        outcome.ok,
        outcome.result,
        outcome.ok ? null : String(outcome.result.error ?? outcome.result.user_message ?? 'failed'),
        at,
      );
      await recordRun(db, s.name, outcome.ok, outcome.result, at);
      this.opts.log.info(
        { schedule: s.name, planned_at: o.planned_at, catch_up: o.catch_up, ok: outcome.ok, delivered: outcome.delivery !== null },
        'schedule ran',
      );
    } finally {
      clearInterval(beat);
    }
  }

  private fire(s: StoredSchedule): Promise<FireOutcome> {
    if (!this.opts.fire) throw new Error('this scheduler cannot run schedules (writer mode)');
    return this.opts.fire(s);
  }

  /**
   * Run one schedule now, outside the ledger (the console's and tests' "run now"). Records the
   * outcome on the schedule.
   * @returns undefined when the schedule no longer exists.
   */
  async runNow(name: string): Promise<FireOutcome | undefined> {
    const s = await getSchedule(this.opts.db, name);
    if (!s) return undefined;
    const outcome = await this.fire(s);
    await recordRun(this.opts.db, name, outcome.ok, outcome.result, this.clock());
    this.opts.log.info({ schedule: name, ok: outcome.ok, delivered: outcome.delivery !== null }, 'schedule ran');
    return outcome;
  }

  private async changed(): Promise<void> {
    if (this.opts.mode === 'worker') await this.tick();
    else await this.opts.db.notify(SCHEDULE_CHANNEL, 'changed');
  }
}
