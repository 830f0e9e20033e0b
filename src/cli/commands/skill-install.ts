/**
 * `skillgate skill install <zip|dir> [--role R] [--json]`
 * (R-PRE-06): unpack safely, preflight in install mode (problems are warnings), copy into
 * `<data>/skills/<name>/` or, with `--role`, `<data>/role-skills/<role>/<name>/`, register and
 * enable. While `skillgate serve` holds the embedded data dir the running server installs it
 * (local admin API `POST /api/local/skill/install`), so its live skill set picks it up at once.
 * stdout: the result (`--json`: one JSON document); warnings on stderr; a refusal exits 1.
 */
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfigFile, type ConfigFile } from '../../config/file.ts';
import { loadSettings, type Settings } from '../../config/settings.ts';
import { createSkillLifecycle } from '../../lifecycle/live.ts';
import type { InstallResult } from '../../lifecycle/types.ts';
import { createLogger } from '../../log/logger.ts';
import type { Db } from '../../store/db.ts';
import { runAdminCommand } from '../db-access.ts';
import { EXIT_OK, type CliIO } from '../io.ts';
import { configErrorsAsRefusal, configDefaults } from '../settings.ts';

/** What the CLI sends to the running server. */
export interface SkillInstallRequest {
  /** Absolute path of the zip file or folder (the server runs on this machine). */
  source: string;
  roleId?: string;
}

/** Install `req` with a one-shot lifecycle over `db` (no watching). */
export async function runSkillInstall(db: Db, settings: Settings, config: ConfigFile, req: SkillInstallRequest): Promise<InstallResult> {
  const log = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });
  const lifecycle = await createSkillLifecycle({ db, settings, config, log, watch: false });
  try {
    return await lifecycle.install(req.source, { roleId: req.roleId });
  } finally {
    await lifecycle.close();
  }
}

/**
 * Run `skill install`.
 * @returns 0 when installed, 1 when refused (the reason on stderr).
 */
export async function skillInstallCommand(source: string, opts: { role?: string; json?: boolean }, io: CliIO): Promise<number> {
  const { settings, config } = configErrorsAsRefusal(() => {
    const settings = loadSettings();
    return { settings, config: loadConfigFile(settings.configPath, configDefaults(settings)) };
  });
  const req: SkillInstallRequest = { source: resolve(process.cwd(), source), ...(opts.role ? { roleId: opts.role } : {}) };
  const done = await runAdminCommand<InstallResult>(settings, io, {
    direct: (db) => runSkillInstall(db, settings, config, req),
    path: '/api/local/skill/install',
    request: req,
    json: opts.json,
  });
  if ('exit' in done) return done.exit;
  const r = done.result as InstallResult;
  for (const w of r.warnings) io.stderr(`skillgate: ${r.skill}: ${w.severity}: ${w.message}\n`);
  io.stdout(
    `已安装技能 ${r.skill} → ${r.dir}${req.roleId ? `（角色 ${req.roleId}）` : ''}${r.warnings.length ? `，${r.warnings.length} 条预检提示` : ''}\n`,
  );
  return EXIT_OK;
}
