/**
 * `skillgate skill list [--role R] [--json]` — the tools a model sees (CONTRACTS.md §4):
 * trigger filter, `[category]` prefix, secret params stripped, sub-command fan-out.
 * stdout: with `--json` exactly one JSON document (the OpenAI tools array), else a table of
 * name and description. Problems of broken skills go to stderr (CONTRACTS.md §1).
 */
import { fileURLToPath } from 'node:url';
import { discoverSkills, type SkillRoot } from '../../registry/index.ts';
import { EXIT_OK, printJson, type CliIO } from '../io.ts';

/** The repository's built-in skills folder (CONTRACTS.md §3). */
const BUILTIN_SKILLS = fileURLToPath(new URL('../../../skills/', import.meta.url));

/**
 * Skill roots in discovery order (CONTRACTS.md §3): the built-in `skills/` folder, then each
 * `SKILLGATE_SKILL_DIRS` entry (`:`-separated, empty entries ignored).
 */
export function skillRoots(env: NodeJS.ProcessEnv = process.env): SkillRoot[] {
  const extra = (env.SKILLGATE_SKILL_DIRS ?? '')
    .split(':')
    .map((d) => d.trim())
    .filter((d) => d !== '');
  return [{ dir: BUILTIN_SKILLS, source: 'builtin' }, ...extra.map((dir): SkillRoot => ({ dir, source: 'shared' }))];
}

/**
 * The skills a role enables: a list of names or `"*"` (CONTRACTS.md §3, §11).
 *
 * ROLE ENABLEMENT HOOK: for now every role enables every discovered skill. When the config
 * module supplies roles (`skillgate.config.yaml` `roles[].skills`, console changes), read the
 * role's list here.
 */
export async function enabledSkillsForRole(_roleId: string): Promise<readonly string[] | '*'> {
  return '*';
}

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
  const roleId = opts.role ?? process.env.SKILLGATE_ROLE_ID ?? 'default';
  const registry = await discoverSkills(skillRoots());
  for (const issue of registry.issues()) {
    if (issue.severity === 'error' || issue.code === 'registry.name_clash' || issue.code === 'registry.root_missing')
      io.stderr(`skillgate: ${issue.skill ?? issue.dir}: ${issue.severity}: ${issue.message}\n`);
  }
  const tools = registry.tools({ skills: await enabledSkillsForRole(roleId) });
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
