/**
 * `skillgate chain check <file> [--json]` (docs/chains.md): the save rules
 * without saving. Exit 0, or exit 1 with one line per problem naming the offending item
 * (`<file>: <item>: <message>`); `--json` prints `{"ok", "problems": [{code, item, message}]}`.
 * Saved chains are read from the database when it can be opened (a step naming one is
 * refused); with a fresh embedded data dir (no database yet) or one held by a running
 * server, only the skills are checked.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chainAwareRegistry } from '../../chain/services.ts';
import { validateChain, type ChainProblem } from '../../chain/validate.ts';
import { log } from '../../log/logger.ts';
import type { Registry } from '../../registry/discover.ts';
import { withCliDb } from '../db-access.ts';
import { CliError, EXIT_OK, EXIT_REFUSED, printJson, type CliIO } from '../io.ts';
import { chainSettings, discover, readChainFile } from './chain-common.ts';

/** Run `chain check`. @returns 0 no problems, 1 problems (or not a chain document). */
export async function chainCheckCommand(file: string, opts: { json?: boolean }, io: CliIO): Promise<number> {
  const doc = readChainFile(file);
  const { settings } = chainSettings();
  const base = await discover(settings);
  let ctx: { registry: Registry; chainNames: Set<string> } = { registry: base, chainNames: new Set() };
  try {
    // A fresh embedded data dir holds no saved chains: no need to create a database for that.
    const hasDb = Boolean(settings.databaseUrl) || existsSync(join(settings.dataDir, 'pgdata'));
    if (hasDb) ctx = await withCliDb(settings, { direct: (db) => chainAwareRegistry(db, base) });
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    log().warn({ reason: err.message }, 'saved chains not read; checking against the installed skills only');
    ctx = { registry: base, chainNames: new Set() };
  }
  const name = (doc as { name?: unknown }).name;
  const problems: ChainProblem[] = validateChain(doc, {
    registry: ctx.registry,
    chainNames: new Set([...ctx.chainNames].filter((n) => n !== name)),
  });
  if (opts.json) printJson(io, { ok: problems.length === 0, problems });
  else for (const p of problems) io.stdout(`${file}: ${p.message}\n`);
  if (problems.length === 0 && !opts.json) io.stderr(`${file}: no problems\n`);
  return problems.length === 0 ? EXIT_OK : EXIT_REFUSED;
}
