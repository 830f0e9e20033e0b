/**
 * `skillgate db migrate` — apply pending migrations. With an embedded data dir held by a
 * running server, the request goes through that server's local admin API (README.md "The skillgate command").
 */
import { loadSettings } from '../../config/settings.ts';
import { migrate, type MigrateResult } from '../../store/migrate.ts';
import { withCliDb } from '../db-access.ts';
import { EXIT_OK, type CliIO } from '../io.ts';
import { configErrorsAsRefusal } from '../settings.ts';

/** Apply migrations and print `applied N migration(s); schema version V`. */
export async function dbMigrateCommand(io: CliIO): Promise<number> {
  const settings = configErrorsAsRefusal(() => loadSettings());
  const result = await withCliDb<MigrateResult>(settings, {
    direct: (db) => migrate(db),
    autoMigrate: false,
    viaServer: (call) => call('POST', '/api/local/db/migrate'),
  });
  io.stdout(`applied ${result.applied.length} migration(s); schema version ${result.current}\n`);
  return EXIT_OK;
}
