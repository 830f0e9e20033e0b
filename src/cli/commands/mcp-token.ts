/**
 * `skillgate mcp token <contact_key> [--role R] [--json]` — issue a bearer token of the MCP
 * endpoint `/mcp` for a directory contact in role R (default SKILLGATE_ROLE_ID); calls made
 * with it run as that contact on channel `mcp` (docs/mcp.md "Tokens"). The token is printed
 * once; only its hash is stored. `skillgate mcp revoke <token_id>` revokes one, `skillgate mcp
 * tokens [--json]` lists them (ids only, never the tokens).
 *
 * stdout: the token, then the endpoint URL; with `--json` exactly one document
 * `{"token", "token_id", "contact_key", "name", "role_id", "org_id", "url"}`.
 * Exit codes: 0 done; 1 refused (unknown role, contact not in the directory,
 * unknown token id); 2 the database could not be reached. Works while `serve` runs (local admin
 * API `POST /api/local/mcp/token`).
 */
import { loadConfigFile } from '../../config/file.ts';
import { readServerInfo } from '../../store/datadir.ts';
import { withCliDb } from '../db-access.ts';
import { EXIT_OK, EXIT_REFUSED, printJson, type CliIO } from '../io.ts';
import { configErrorsAsRefusal, configDefaults } from '../settings.ts';
import { configSettings } from './config-set.ts';
import { type McpTokenRequest, type McpTokenResult, runMcpTokenCommand } from '../../admin/mcp-tokens.ts';

async function runVia(req: McpTokenRequest): Promise<{ result: McpTokenResult; port: number; publicUrl?: string }> {
  const settings = configSettings();
  let port = settings.port || 8787;
  const result = await withCliDb<McpTokenResult>(settings, {
    direct: (db) => runMcpTokenCommand(db, req),
    viaServer: (call) => {
      port = readServerInfo(settings.dataDir)?.port ?? port;
      return call<McpTokenResult>('POST', '/api/local/mcp/token', req);
    },
  });
  return { result, port, publicUrl: settings.publicUrl };
}

/** `mcp token`. @returns 0 issued, 1 refused. */
export async function mcpTokenCommand(contactKey: string, opts: { role?: string; json?: boolean }, io: CliIO): Promise<number> {
  const settings = configSettings();
  const roleId = opts.role?.trim() || settings.roleId;
  const config = configErrorsAsRefusal(() => loadConfigFile(settings.configPath, configDefaults(settings)));
  const role = config.roles.find((r) => r.id === roleId);
  if (!role) {
    io.stderr(`skillgate: unknown role "${roleId}" (roles: ${config.roles.map((r) => r.id).join(', ')})\n`);
    return EXIT_REFUSED;
  }
  const { result, port, publicUrl } = await runVia({ op: 'issue', orgId: role.org_id, roleId: role.id, contactKey });
  if (!result.ok || result.op !== 'issue') {
    io.stderr(`skillgate: ${result.ok ? 'unexpected answer' : result.error}\n`);
    return EXIT_REFUSED;
  }
  const url = (publicUrl?.replace(/\/+$/, '') || `http://localhost:${port}`) + '/mcp';
  const { ok: _ok, op: _op, ...doc } = result;
  if (opts.json) {
    printJson(io, { ...doc, url });
    return EXIT_OK;
  }
  io.stdout(`${result.token}\n${url}\n`);
  io.stderr(
    `skillgate: MCP token ${result.token_id} for ${result.name} (${result.contact_key}), role ${result.role_id}; shown once, keep it private\n`,
  );
  return EXIT_OK;
}

/** `mcp revoke <token_id>`. @returns 0 revoked, 1 unknown. */
export async function mcpRevokeCommand(tokenId: string, io: CliIO): Promise<number> {
  const { result } = await runVia({ op: 'revoke', tokenId });
  if (!result.ok) {
    io.stderr(`skillgate: ${result.error}\n`);
    return EXIT_REFUSED;
  }
  io.stdout(`revoked ${tokenId}\n`);
  return EXIT_OK;
}

/** `mcp tokens [--json]`. @returns 0. */
export async function mcpTokensCommand(opts: { json?: boolean }, io: CliIO): Promise<number> {
  const { result } = await runVia({ op: 'list' });
  const tokens = result.ok && result.op === 'list' ? result.tokens : [];
  if (opts.json) {
    printJson(io, tokens);
    return EXIT_OK;
  }
  const lines = tokens.map((t) => `${t.tokenId}  ${t.roleId}  ${t.contactKey}  ${t.revokedAt ? 'revoked' : 'live'}  ${t.createdAt}`);
  io.stdout(lines.length ? lines.join('\n') + '\n' : '');
  return EXIT_OK;
}
