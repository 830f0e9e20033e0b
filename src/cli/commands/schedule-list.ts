/**
 * `skillgate schedule list [--json]` — the schedules with their last run and their latest
 * occurrences from the ledger (docs/schedules.md): one line per schedule, then one indented
 * line per occurrence, newest first.
 */
import { formatInstant } from '../../present/clock.ts';
import { recentOccurrences, type Occurrence } from '../../schedule/ledger.ts';
import { listSchedules, type StoredSchedule } from '../../schedule/store.ts';
import { withCliDb } from '../db-access.ts';
import { EXIT_OK, printJson, type CliIO } from '../io.ts';
import { chainSettings } from './chain-common.ts';

/** Occurrences shown per schedule. */
const SHOWN = 5;

type Listed = StoredSchedule & { occurrences: Array<Pick<Occurrence, 'planned_at' | 'status' | 'catch_up' | 'finished_at' | 'error'>> };

/** Run `schedule list`. */
export async function scheduleListCommand(opts: { json?: boolean }, io: CliIO): Promise<number> {
  const { settings } = chainSettings();
  const rows = await withCliDb<Listed[]>(settings, {
    direct: async (db) => {
      const occ = await recentOccurrences(db, SHOWN);
      return (await listSchedules(db)).map((s) => ({
        ...s,
        occurrences: occ
          .filter((o) => o.schedule === s.name)
          .map((o) => ({ planned_at: o.planned_at, status: o.status, catch_up: o.catch_up, finished_at: o.finished_at, error: o.error })),
      }));
    },
  });
  if (opts.json) {
    printJson(io, rows);
    return EXIT_OK;
  }
  for (const s of rows) {
    const last = s.last_run_at ? `${formatInstant(new Date(s.last_run_at))} ${s.last_ok ? 'ok' : 'failed'}` : 'never ran';
    io.stdout(`${s.name}\t${s.cron} (${s.timezone})\t${s.kind} ${s.target}\t${s.deliver_to || '-'}\t${last}\tmissed: ${s.missed}\n`);
    for (const o of s.occurrences)
      io.stdout(
        `  ${formatInstant(new Date(o.planned_at))}\t${o.status}${o.catch_up ? ' (catch-up)' : ''}${o.error ? `\t${o.error}` : ''}\n`,
      );
  }
  return EXIT_OK;
}
