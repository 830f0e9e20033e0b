/**
 * pg-boss 10.4.2 over our {@link Db} (both engines): pg-boss gets a `db` object with
 * `executeSql(text, values)` (pg-boss README "db option"), so it runs on the server pool and
 * on embedded PGlite alike, in schema `pgboss`. Embedded mode has one process, hence one
 * worker per queue (library-facts §5: pg-boss advisory locks exclude nothing there).
 */
import PgBoss from 'pg-boss';
import type { Db } from '../store/db.ts';

/** Options of {@link createBoss}. */
export interface BossOptions {
  /** Run the cron timekeeper (and its send-it worker); false for CLI processes that only write. */
  schedule: boolean;
  /** Maintenance (expiry, archive); false for short-lived processes. */
  supervise: boolean;
  /** How often the timekeeper checks cron entries, seconds (1..45; pg-boss default 30). */
  cronMonitorIntervalSeconds?: number;
  /** How often the timekeeper's send-it worker polls, seconds (1..45; pg-boss default 5). */
  cronWorkerIntervalSeconds?: number;
}

/** The pg-boss schema. */
export const BOSS_SCHEMA = 'pgboss';

/** A pg-boss instance speaking through `db` (not started). */
export function createBoss(db: Db, opts: BossOptions): PgBoss {
  const adapter = {
    executeSql: async (text: string, values?: unknown[]) => db.query(text, values && values.length > 0 ? values : undefined),
  };
  return new PgBoss({
    db: adapter,
    schema: BOSS_SCHEMA,
    schedule: opts.schedule,
    supervise: opts.supervise,
    migrate: true,
    ...(opts.cronMonitorIntervalSeconds ? { cronMonitorIntervalSeconds: opts.cronMonitorIntervalSeconds } : {}),
    ...(opts.cronWorkerIntervalSeconds ? { cronWorkerIntervalSeconds: opts.cronWorkerIntervalSeconds } : {}),
  });
}

/**
 * Start `boss`, installing or migrating its schema. pg-boss checks whether its schema exists
 * before taking its own lock, so two processes starting at once on one server could both try to
 * create it; on the server engine the start (and `then`) runs under a cross-process advisory lock (embedded
 * PGlite is one process and one session: no lock, which would deadlock there).
 */
export async function startBoss(db: Db, boss: PgBoss, then?: () => Promise<void>): Promise<void> {
  const run = async (): Promise<void> => {
    await boss.start();
    await then?.(); // e.g. create a queue: under the same lock, so two starters do not race
  };
  if (db.engine !== 'server') return run();
  await db.withLock('skillgate_pgboss_start', run);
}
