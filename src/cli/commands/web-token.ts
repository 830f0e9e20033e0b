/**
 * `skillgate web token <contact_key> [--role R] [--json]` — issue a web chat sign-in token
 * for a directory contact (docs/web-protocol.md "Authentication"). `--role` only picks the
 * organisation whose directory holds the contact; the web chat answers as the default role. The token is printed once
 * (only its hash is stored) with the sign-in URL `http://localhost:<PORT>/#token=…`
 * (`SKILLGATE_PUBLIC_URL` instead of localhost when set).
 *
 * stdout: the token, then the URL, one per line; with `--json` exactly one document
 * `{"contact_key", "name", "org_id", "token", "url"}`.
 * Exit codes (README.md "The skillgate command"): 0 issued; 1 refused (the contact is not in the directory,
 * unknown role); 2 the database could not be reached. Works while `serve` runs (local admin
 * API `POST /api/local/web/token`).
 */
import { loadConfigFile } from '../../config/file.ts';
import { readServerInfo } from '../../store/datadir.ts';
import { withCliDb } from '../db-access.ts';
import { EXIT_OK, EXIT_REFUSED, printJson, type CliIO } from '../io.ts';
import { configErrorsAsRefusal, configDefaults } from '../settings.ts';
import { configSettings } from './config-set.ts';
import { type WebTokenRequest, type WebTokenResult, runWebTokenCommand } from '../../admin/web-tokens.ts';

/**
 * Run `web token` with commander's parsed options.
 * @returns 0 issued, 1 refused; throws CliError (exit 2) when the database cannot be reached.
 */
export async function webTokenCommand(contactKey: string, opts: { role?: string; json?: boolean }, io: CliIO): Promise<number> {
  const settings = configSettings();
  const roleId = opts.role?.trim() || settings.roleId;
  const config = configErrorsAsRefusal(() => loadConfigFile(settings.configPath, configDefaults(settings)));
  const role = config.roles.find((r) => r.id === roleId);
  if (!role) {
    io.stderr(`skillgate: unknown role "${roleId}"\n`);
    return EXIT_REFUSED;
  }
  const req: WebTokenRequest = { orgId: role.org_id, contactKey };
  let port = settings.port || 8787;
  const result = await withCliDb<WebTokenResult>(settings, {
    direct: (db) => runWebTokenCommand(db, req),
    viaServer: (call) => {
      // the sign-in URL points at the server that is actually running (its PORT may differ)
      port = readServerInfo(settings.dataDir)?.port ?? port;
      return call<WebTokenResult>('POST', '/api/local/web/token', req);
    },
  });
  if (!result.ok) {
    io.stderr(`skillgate: ${result.error}\n`);
    return EXIT_REFUSED;
  }
  const base = (settings.publicUrl?.replace(/\/+$/, '') || `http://localhost:${port}`) + '/';
  const url = `${base}#token=${result.token}`;
  if (opts.json) {
    printJson(io, { contact_key: result.contact_key, name: result.name, org_id: result.org_id, token: result.token, url });
    return EXIT_OK;
  }
  io.stdout(`${result.token}\n${url}\n`);
  io.stderr(`skillgate: web sign-in token for ${result.name} (${result.contact_key}); shown once, keep it private\n`);
  return EXIT_OK;
}
