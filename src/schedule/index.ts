/**
 * Schedules: what the gateway starts, and what the CLI writes.
 * See docs/chains.md §Schedules.
 */
import type { ChainServices } from '../chain/skill.ts';
import { pipelineFire } from './fire.ts';
import { Scheduler } from './scheduler.ts';

export { Scheduler, ScheduleError, SCHEDULE_CHANNEL, SCHEDULE_DEFAULTS } from './scheduler.ts';
export { recentOccurrences, type Occurrence, type OccurrenceStatus } from './ledger.ts';
export { pipelineFire, deliveryCall, deliveryText, type FireOutcome } from './fire.ts';
export { listSchedules, getSchedule, MISSED_POLICIES, type MissedPolicy, type Schedule, type StoredSchedule } from './store.ts';

/**
 * Start the gateway's scheduler: it plans every schedule into the occurrence ledger each tick
 * and runs what this replica claimed through the pipeline (`pipelineFire`). Call `stop()` on
 * shutdown.
 * @param orgFor the org id of a role (from the config file).
 */
export async function startGatewayScheduler(services: ChainServices, orgFor: (roleId: string) => string): Promise<Scheduler> {
  const scheduler = new Scheduler({ db: services.db, log: services.log, mode: 'worker', fire: pipelineFire(services, orgFor) });
  await scheduler.start();
  return scheduler;
}
