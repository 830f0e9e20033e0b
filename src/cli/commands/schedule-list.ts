/** `skillgate schedule list [--json]` — the schedules with their last run. */
import { listSchedules, type StoredSchedule } from '../../schedule/store.ts';
import { withCliDb } from '../db-access.ts';
import { EXIT_OK, printJson, type CliIO } from '../io.ts';
import { chainSettings } from './chain-common.ts';

/** Run `schedule list`. */
export async function scheduleListCommand(opts: { json?: boolean }, io: CliIO): Promise<number> {
  const { settings } = chainSettings();
  const rows = await withCliDb<StoredSchedule[]>(settings, { direct: (db) => listSchedules(db) });
  if (opts.json) {
    printJson(io, rows);
    return EXIT_OK;
  }
  for (const s of rows) {
    const last = s.last_run_at ? `${new Date(s.last_run_at).toISOString()} ${s.last_ok ? 'ok' : 'failed'}` : 'never ran';
    io.stdout(`${s.name}\t${s.cron} (${s.timezone})\t${s.kind} ${s.target}\t${s.deliver_to || '-'}\t${last}\n`);
  }
  return EXIT_OK;
}
