/**
 * Console section `mcp` (docs/mcp.md "Tokens", docs/console-sections.md "MCP tokens"): the
 * bearer tokens of `/mcp` — the same `runMcpTokenCommand` as `skillgate mcp token|revoke|tokens`.
 * A new token is shown once in the answer to the issue request; lists carry ids only.
 *
 *   GET  tokens                              → {tokens: McpTokenRow[]}
 *   POST tokens {role, contact_key}          → {token, token_id, contact_key, name, role_id, org_id};
 *                                              400 `refused` (unknown role, contact not in the directory)
 *   POST revoke {token_id}                   → {ok:true}; 404 `not_found`
 */
import express from 'express';
import { runMcpTokenCommand } from '../../admin/mcp-tokens.ts';
import { fail, roleOf, str, type AdminSection } from '../kit.ts';
import { adminOfSafe } from './directory.ts';

/** The `mcp` section. */
export const mcpSection: AdminSection = {
  id: 'mcp',
  title: { zh: 'MCP 令牌', en: 'MCP tokens' },
  routes(deps) {
    const r = express.Router();

    r.get('/tokens', async (_req, res) => {
      const done = await runMcpTokenCommand(deps.db, { op: 'list' });
      res.json({ tokens: done.ok && done.op === 'list' ? done.tokens : [] });
    });

    r.post('/tokens', async (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const role = roleOf(deps, str(body.role) ?? '');
      if (!role) return fail(res, 400, 'refused', `未知角色「${String(body.role ?? '')}」。`);
      const done = await runMcpTokenCommand(deps.db, {
        op: 'issue',
        orgId: role.org_id,
        roleId: role.id,
        contactKey: str(body.contact_key) ?? '',
      });
      if (!done.ok) return fail(res, 400, 'refused', `未签发：${done.error}`);
      if (done.op !== 'issue') throw new Error('unexpected MCP token result');
      deps.log.info(
        { admin: adminOfSafe(res), token_id: done.token_id, contact: done.contact_key, role: done.role_id },
        'admin console: MCP token issued',
      );
      const { ok: _ok, op: _op, ...doc } = done;
      res.json(doc);
    });

    r.post('/revoke', async (req, res) => {
      const id = str((req.body as Record<string, unknown> | undefined)?.token_id) ?? '';
      const done = await runMcpTokenCommand(deps.db, { op: 'revoke', tokenId: id });
      if (!done.ok) return fail(res, 404, 'not_found', `没有有效的 MCP 令牌「${id}」。`);
      deps.log.info({ admin: adminOfSafe(res), token_id: id }, 'admin console: MCP token revoked');
      res.json({ ok: true });
    });

    return r;
  },
};
