/**
 * `skillgate chain save <file>` and `skillgate chain enable|disable <name>` (docs/chains.md).
 * Save runs the same validation as `chain check` and `POST /skills/chain/save`; a refused
 * chain prints one line per problem and exits 1.
 */
import { validateAndSave } from '../../chain/services.ts';
import { setChainEnabled } from '../../chain/store.ts';
import { withCliDb } from '../db-access.ts';
import { EXIT_OK, EXIT_REFUSED, type CliIO } from '../io.ts';
import { chainSettings, discover, readChainFile } from './chain-common.ts';

/** Run `chain save`. @returns 0 saved, 1 refused. */
export async function chainSaveCommand(file: string, io: CliIO): Promise<number> {
  const doc = readChainFile(file);
  const { settings } = chainSettings();
  const base = await discover(settings);
  const outcome = await withCliDb(settings, { direct: (db) => validateAndSave(db, base, doc) });
  if (!outcome.ok) {
    for (const p of outcome.problems) io.stdout(`${file}: ${p.message}\n`);
    return EXIT_REFUSED;
  }
  io.stdout(`saved chain ${outcome.chain.name} (${outcome.chain.enabled ? 'enabled' : 'disabled'})\n`);
  return EXIT_OK;
}

/** Run `chain enable` / `chain disable`. @returns 0, or 1 when no chain has that name. */
export async function chainEnableCommand(name: string, enabled: boolean, io: CliIO): Promise<number> {
  const { settings } = chainSettings();
  const found = await withCliDb(settings, { direct: (db) => setChainEnabled(db, name, enabled) });
  if (!found) {
    io.stderr(`skillgate: no saved chain named "${name}"\n`);
    return EXIT_REFUSED;
  }
  io.stdout(`chain ${name} ${enabled ? 'enabled' : 'disabled'}\n`);
  return EXIT_OK;
}
