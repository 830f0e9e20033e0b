/** `skillgate schedule remove <name>` — the schedule and its occurrence ledger. */
import { withCliDb } from '../db-access.ts';
import { EXIT_OK, EXIT_REFUSED, type CliIO } from '../io.ts';
import { chainSettings } from './chain-common.ts';
import { withWriter } from './schedule-add.ts';

/** Run `schedule remove`. @returns 0 removed, 1 when no schedule has that name. */
export async function scheduleRemoveCommand(name: string, io: CliIO): Promise<number> {
  const { settings } = chainSettings();
  const existed = await withCliDb(settings, { direct: (db) => withWriter(db, (s) => s.remove(name)) });
  if (!existed) {
    io.stderr(`skillgate: no schedule named "${name}"\n`);
    return EXIT_REFUSED;
  }
  io.stdout(`schedule ${name} removed\n`);
  return EXIT_OK;
}
