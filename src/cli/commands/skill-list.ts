/**
 * `skillgate skill list [--role R] [--json]` — the tools a model sees (CONTRACTS.md §4):
 * trigger filter, `[category]` prefix, secret params stripped, sub-command fan-out.
 * stdout: with `--json` exactly one JSON document (the OpenAI tools array), else a table of
 * name and description. Problems of broken skills go to stderr (CONTRACTS.md §1).
 */
import { loadConfigFile, roleSkills } from '../../config/file.ts';
import { loadSettings } from '../../config/settings.ts';
import { discoverSkills, type SkillRoot } from '../../registry/index.ts';
import { CliError, EXIT_OK, EXIT_REFUSED, printJson, type CliIO } from '../io.ts';
import { configErrorsAsRefusal } from '../settings.ts';

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
    return { settings, config: loadConfigFile(settings.configPath, settings) };
  });
  const roleId = opts.role ?? settings.roleId;
  const enabled = roleSkills(config, roleId);
  if (enabled === undefined) throw new CliError(`unknown role "${roleId}" (roles: ${config.roles.map((r) => r.id).join(', ')})`, EXIT_REFUSED);
  const roots: SkillRoot[] = settings.skillRoots;
  const registry = await discoverSkills(roots);
  for (const issue of registry.issues()) {
    if (issue.severity === 'error' || issue.code === 'registry.name_clash' || issue.code === 'registry.root_missing')
      io.stderr(`skillgate: ${issue.skill ?? issue.dir}: ${issue.severity}: ${issue.message}\n`);
  }
  const tools = registry.tools({ skills: enabled });
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
