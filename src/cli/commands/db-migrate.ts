/**
 * `skillgate db migrate` — apply pending migrations. With an embedded data dir held by a
 * running server, the request goes through that server's local admin API (CONTRACTS.md §1).
 */
import { ConfigError } from '../../config/errors.ts';
import { loadSettings } from '../../config/settings.ts';
import { migrate, type MigrateResult } from '../../store/migrate.ts';
import { withCliDb } from '../db-access.ts';
import { CliError, EXIT_OK, EXIT_REFUSED, type CliIO } from '../io.ts';

/** Apply migrations and print `applied N migration(s); schema version V`. */
export async function dbMigrateCommand(io: CliIO): Promise<number> {
  let settings;
  try {
    settings = loadSettings();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(`configuration: ${err.message}`, EXIT_REFUSED);
    throw err;
  }
  const result = await withCliDb<MigrateResult>(settings, {
    direct: (db) => migrate(db),
    viaServer: (call) => call('POST', '/api/local/db/migrate'),
  });
  io.stdout(`applied ${result.applied.length} migration(s); schema version ${result.current}\n`);
  return EXIT_OK;
}
