/**
 * `skillgate skill run` as a request (README.md "The skillgate command"): the options, their defaults, and the
 * call through the composed skill call (`services.call`). Used by the CLI directly and by the running server's local
 * admin API, so both paths behave the same.
 */
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { roleSkills, type ConfigFile } from '../config/file.ts';
import type { Envelope } from '../envelope/types.ts';
import { loadSkill } from '../registry/load-skill.ts';
import { resolveToolName } from '../registry/subcommands.ts';
import type { SkillRecord } from '../registry/types.ts';
import { sessionIdForWorkspace } from '../session/sessions.ts';
import { workspaceDir } from '../session/workspace.ts';
import { callFromContext } from './request.ts';
import type { SkillCall, SkillServices } from './skill-call.ts';

/** The options of `skill run`, as given (JSON already parsed). */
export interface CliRunOptions {
  /** A skill name (or `<skill>__<sub>`), or a skill folder path. */
  target: string;
  input: Record<string, unknown>;
  /** `--context`: fixed and platform keys, `_` keys. */
  context: Record<string, unknown>;
  /** `--workspace DIR`, resolved against `cwd`. */
  workspace?: string;
  /** `--raw-input TEXT`: the user's original text of this turn. */
  rawInput?: string;
  /** `--role R`. */
  role?: string;
  /** The caller's working directory (for relative paths). */
  cwd: string;
}

/** Thrown for an option the command refuses (exit 1). */
export class CliRunRefusal extends Error {
  override name = 'CliRunRefusal';
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Run `skill run` with `services`.
 * Defaults (README.md "The skillgate command"): role `--role` or the default role; org from the role
 * (`SKILLGATE_ORG_ID` unless the config file gives the role another); session id derived from the workspace path;
 * channel `cli`, chat_mode true, allow_sql true, team_role member, is_admin false; every key
 * overridable by `--context`.
 * @throws CliRunRefusal for an unknown role, or a skill name the role does not enable.
 */
export async function runFromCli(
  services: SkillServices & { readonly call: SkillCall },
  config: ConfigFile,
  defaultRoleId: string,
  opts: CliRunOptions,
): Promise<Envelope> {
  const roleId = opts.role ?? ((typeof opts.context.role_id === 'string' && opts.context.role_id) || defaultRoleId);
  const role = config.roles.find((r) => r.id === roleId);
  if (!role) throw new CliRunRefusal(`unknown role "${roleId}" (roles: ${config.roles.map((r) => r.id).join(', ')})`);

  // A folder path runs that folder; anything else is a registered name (README.md "The skillgate command").
  let target: string | SkillRecord = opts.target;
  const asPath = resolve(opts.cwd, opts.target);
  const looksLikePath = opts.target.includes('/') || opts.target.startsWith('.') || !services.registry.resolveTool(opts.target);
  if (looksLikePath && isDirectory(asPath)) {
    target = await loadSkill(asPath, { dir: dirname(asPath), source: 'shared' });
  } else {
    const enabled = services.skillsFor?.(roleId) ?? roleSkills(config, roleId);
    const base = services.registry.resolveTool(opts.target)?.skill ?? resolveToolName(opts.target).skill;
    if (enabled !== '*' && enabled !== undefined && !enabled.includes(base)) {
      throw new CliRunRefusal(`role "${roleId}" does not enable skill "${base}"`);
    }
  }

  const workspace = opts.workspace
    ? resolve(opts.cwd, opts.workspace)
    : typeof opts.context.workspace_dir === 'string' && opts.context.workspace_dir
      ? resolve(opts.cwd, opts.context.workspace_dir)
      : undefined;
  const sessionId =
    typeof opts.context.session_id === 'string' && opts.context.session_id
      ? opts.context.session_id
      : sessionIdForWorkspace(workspace ?? resolve(services.settings.dataDir, 'workspaces', roleId, 'cli'));
  const ws = workspace ?? workspaceDir(services.settings.dataDir, roleId, sessionId);
  // `--context` is parsed once here (src/executor/request.ts); --workspace and --raw-input win over it.
  const given: Record<string, unknown> = { ...opts.context, workspace_dir: ws };
  if (opts.rawInput !== undefined) given.raw_input = opts.rawInput;
  const parties = callFromContext(given, {
    role_id: roleId,
    org_id: role.org_id,
    session_id: sessionId,
    channel: 'cli',
    chat_mode: true,
    allow_sql: true,
    team_role: 'member',
    is_admin: false,
    workspace_dir: ws,
  });
  return services.call({ skill: target, input: opts.input, ...parties, line: 'cli' });
}
