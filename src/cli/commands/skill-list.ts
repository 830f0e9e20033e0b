/**
 * `skillgate skill list [--role R] [--json]` — the tools a model sees (README.md "The skillgate command"):
 * trigger filter, `[category]` prefix, secret params stripped, sub-command fan-out; the role's
 * scope is the live one (config `skills:`, the console's overrides, the role's own skills —
 * `src/lifecycle/`), read through the running server while it holds the data dir.
 * stdout: with `--json` exactly one JSON document (the OpenAI tools array), else a table of
 * name and description. Problems of broken skills go to stderr (README.md "The skillgate command").
 */
import { loadConfigFile, roleSkills } from '../../config/file.ts';
import { loadSettings } from '../../config/settings.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createSkillLifecycle } from '../../lifecycle/live.ts';
import { createLogger } from '../../log/logger.ts';
import type { ModelTool } from '../../registry/types.ts';
import type { Db } from '../../store/db.ts';
import { withCliDb } from '../db-access.ts';
import { CliError, EXIT_OK, EXIT_REFUSED, printJson, type CliIO } from '../io.ts';
import { configErrorsAsRefusal, configDefaults } from '../settings.ts';

/** Pad `s` to `width` display columns (CJK characters count as two). */
function pad(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - displayWidth(s)));
}

function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(ch) ? 2 : 1;
  return w;
}

/**
 * Run `skill list`.
 * @returns 0 (a list was printed, possibly empty).
 */
export async function skillListCommand(opts: { role?: string; json?: boolean }, io: CliIO): Promise<number> {
  const { settings, config } = configErrorsAsRefusal(() => {
    const settings = loadSettings();
    return { settings, config: loadConfigFile(settings.configPath, configDefaults(settings)) };
  });
  const roleId = opts.role ?? settings.roleId;
  const enabled = roleSkills(config, roleId);
  if (enabled === undefined)
    throw new CliError(`unknown role "${roleId}" (roles: ${config.roles.map((r) => r.id).join(', ')})`, EXIT_REFUSED);
  // The live skill set without watching: configured roots, installed and role skills; the
  // console's overrides when a database exists (never created just for a listing).
  const list = async (db: Db | undefined): Promise<ModelTool[]> => {
    const log = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });
    const lifecycle = await createSkillLifecycle({ db, settings, config, log, watch: false });
    try {
      for (const issue of lifecycle.registry().issues()) {
        if (
          issue.severity === 'error' ||
          issue.code === 'registry.name_clash' ||
          issue.code === 'registry.root_missing' ||
          issue.code === 'lifecycle.role_shadows' ||
          issue.code === 'call_skill.async_callee'
        )
          io.stderr(`skillgate: ${issue.skill ?? issue.dir}: ${issue.severity}: ${issue.message}\n`);
      }
      return lifecycle.registry().tools({ skills: lifecycle.skillsFor(roleId) });
    } finally {
      await lifecycle.close();
    }
  };
  const hasDb = settings.databaseUrl !== undefined || existsSync(join(settings.dataDir, 'pgdata'));
  let tools: ModelTool[];
  if (!hasDb) tools = await list(undefined);
  else {
    try {
      tools = await withCliDb(settings, {
        direct: list,
        viaServer: async (call) => (await call<{ tools: ModelTool[] }>('POST', '/api/local/skill/list', { role: roleId })).tools,
      });
    } catch (err) {
      // A listing never fails for the database: without it, the config list decides.
      if (!(err instanceof CliError)) throw err;
      io.stderr(`skillgate: console overrides not read (${err.message}); listing by the config only\n`);
      tools = await list(undefined);
    }
  }
  if (opts.json) {
    printJson(io, tools);
    return EXIT_OK;
  }
  const rows = tools.map((t) => [t.function.name, t.function.description.replace(/\s+/g, ' ')] as const);
  const width = Math.max(4, ...rows.map(([n]) => displayWidth(n)));
  const lines = [`${pad('NAME', width)}  DESCRIPTION`, ...rows.map(([n, d]) => `${pad(n, width)}  ${d}`)];
  io.stdout(lines.join('\n') + '\n');
  return EXIT_OK;
}
