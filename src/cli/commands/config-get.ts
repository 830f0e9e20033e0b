/**
 * `skillgate config get <skill> [--role R] [--json]` — show a skill's stored parameters for a
 * role, secret values masked as `********` (never decrypted for display; R-CFG-05, R-CFG-10).
 * stdout: `key = value` lines (nothing when none), or with `--json` exactly one JSON
 * document `{"role_id", "skill", "values": {name: value|"********"}, "encrypted": [names]}`.
 */
import { listSkillConfig, type SkillConfigEntry } from '../../runtime/skill-config.ts';
import { withCliDb } from '../db-access.ts';
import { EXIT_OK, printJson, type CliIO } from '../io.ts';
import { configSettings } from './config-set.ts';

/** The text that stands for a secret value. */
export const MASK = '********';

/**
 * Run `config get`.
 * @returns 0 (the list was printed, possibly empty); throws CliError exit 2 when the
 *   database cannot be reached, exit 1 on a configuration problem.
 */
export async function configGetCommand(skill: string, opts: { role?: string; json?: boolean }, io: CliIO): Promise<number> {
  const settings = configSettings();
  const roleId = opts.role?.trim() || settings.roleId;
  const entries = await withCliDb<SkillConfigEntry[]>(settings, {
    direct: (db) => listSkillConfig(db, roleId, skill),
    viaServer: (call) => call<SkillConfigEntry[]>('POST', '/api/local/config/get', { roleId, skill }),
  });
  const values: Record<string, string> = {};
  for (const e of entries) values[e.key] = e.encrypted ? MASK : (e.value ?? '');
  if (opts.json) {
    printJson(io, { role_id: roleId, skill, values, encrypted: entries.filter((e) => e.encrypted).map((e) => e.key) });
    return EXIT_OK;
  }
  if (entries.length === 0) {
    io.stderr(`skillgate: no parameters stored for ${skill} (role ${roleId})\n`);
    return EXIT_OK;
  }
  io.stdout(entries.map((e) => `${e.key} = ${values[e.key]}`).join('\n') + '\n');
  return EXIT_OK;
}
