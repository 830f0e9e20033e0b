/**
 * `skillgate schedule add|list|remove`. The commands write the schedule table (writer mode:
 * nothing runs here); the gateways plan it into the occurrence ledger (docs/schedules.md).
 */
import { getChain } from '../../chain/store.ts';
import { log } from '../../log/logger.ts';
import { Scheduler, ScheduleError } from '../../schedule/scheduler.ts';
import { MISSED_POLICIES, type MissedPolicy } from '../../schedule/store.ts';
import type { Db } from '../../store/db.ts';
import { withCliDb } from '../db-access.ts';
import { CliError, EXIT_OK, EXIT_REFUSED, type CliIO } from '../io.ts';
import { chainSettings, discover } from './chain-common.ts';
import type { ScheduleAddFlags } from './chain-register.ts';

/** Run `fn` with a writer-mode scheduler over `db`. */
export async function withWriter<T>(db: Db, fn: (s: Scheduler) => Promise<T>): Promise<T> {
  const scheduler = new Scheduler({ db, log: log(), mode: 'writer' });
  await scheduler.start();
  try {
    return await fn(scheduler);
  } finally {
    await scheduler.stop();
  }
}

/** Run `schedule add`. @returns 0 added, 1 refused. */
export async function scheduleAddCommand(name: string, flags: ScheduleAddFlags, io: CliIO): Promise<number> {
  if (Boolean(flags.skill) === Boolean(flags.chain)) throw new CliError('give exactly one of --skill or --chain', EXIT_REFUSED);
  let input: unknown;
  try {
    input = JSON.parse(flags.input ?? '{}');
  } catch (err) {
    throw new CliError(`--input is not valid JSON: ${(err as Error).message}`, EXIT_REFUSED);
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new CliError('--input must be a JSON object', EXIT_REFUSED);
  const missed = (flags.missed ?? 'once') as MissedPolicy;
  if (!MISSED_POLICIES.includes(missed)) throw new CliError(`--missed must be one of ${MISSED_POLICIES.join(', ')}`, EXIT_REFUSED);
  const { settings } = chainSettings();
  const kind = flags.skill ? 'skill' : 'chain';
  const target = (flags.skill ?? flags.chain)!;
  const registry = kind === 'skill' ? await discover(settings) : undefined;
  await withCliDb(settings, {
    direct: async (db) => {
      if (kind === 'chain' && !(await getChain(db, target))) throw new CliError(`no saved chain named "${target}"`, EXIT_REFUSED);
      if (kind === 'skill' && !registry!.resolveTool(target)) throw new CliError(`no skill named "${target}"`, EXIT_REFUSED);
      await withWriter(db, (s) =>
        s.add({
          name,
          cron: flags.cron,
          timezone: flags.tz ?? 'UTC',
          kind,
          target,
          input: input as Record<string, unknown>,
          deliver_to: flags.to ?? '',
          role_id: flags.role ?? settings.roleId,
          missed,
        }),
      ).catch((err: unknown) => {
        if (err instanceof ScheduleError) throw new CliError(err.message, EXIT_REFUSED);
        throw err;
      });
    },
  });
  io.stdout(`schedule ${name}: ${kind} ${target} at "${flags.cron}"${flags.to ? ` → ${flags.to}` : ''} (missed: ${missed})\n`);
  return EXIT_OK;
}
