/**
 * skillgate as an MCP server (docs/mcp.md): a real gateway, the official SDK client over
 * streamable HTTP with bearer tokens. 张三's token lists and calls `datatable` (the audit log
 * shows 张三 on channel mcp); a token of a role without datatable does not see it and cannot
 * call it; a revoked or unknown token gets 401; a foreign Origin gets 403.
 */
import { BUILD_DIRECTORY_CHANNELS } from '../helpers/channels.ts';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryAudit } from '../../src/audit/store.ts';
import { loadSettings } from '../../src/config/settings.ts';
import { startGateway, type Gateway } from '../../src/gateway.ts';
import { importDirectory } from '../../src/identity/import.ts';
import { createLogger } from '../../src/log/logger.ts';
import { mcpSessionId } from '../../src/mcp/server/calls.ts';
import { issueMcpToken, revokeMcpToken } from '../../src/mcp/server/tokens.ts';
import { getSession } from '../../src/session/sessions.ts';
import { ENGINES, serverDatabaseUrl } from '../helpers/db.ts';
import { TURN_FIXTURES } from '../turn/helpers.ts';

const KEY = Buffer.alloc(32, 9).toString('base64');
const CONFIG = `roles:
  - id: default
    org_id: demo
    skills: ["*"]
  - id: viewer
    org_id: demo
    skills: ["help"]
`;

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

for (const engine of ENGINES) {
  describe(`MCP server /mcp [${engine}]`, () => {
    let gateway: Gateway;
    let url: string;
    let dir: string;
    const saved = { ...process.env };
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'sg-mcp-srv-'));
      writeFileSync(join(dir, 'skillgate.config.yaml'), CONFIG);
      const env: Record<string, string> = {
        SKILLGATE_DATA_DIR: join(dir, 'data'),
        PORT: '0',
        SKILLGATE_CONFIG: join(dir, 'skillgate.config.yaml'),
        SKILLGATE_SKILL_DIRS: TURN_FIXTURES,
      };
      if (engine === 'server') Object.assign(env, { DATABASE_URL: await serverDatabaseUrl('_mcpsrv', true), SKILLGATE_SECRET_KEY: KEY });
      delete process.env.SKILLGATE_PUBLIC_URL;
      gateway = await startGateway(loadSettings(env, dir), createLogger({ level: 'silent' }), {});
      const rep = await importDirectory(gateway.db, {
        channels: BUILD_DIRECTORY_CHANNELS,
        orgId: 'demo',
        roleId: 'default',
        data: JSON.stringify({ contacts: [{ contact_key: 'zhangsan', name: '张三', emp_no: 'E1001', department: '销售部' }] }),
        format: 'json',
      });
      expect(rep.errors).toEqual([]);
      url = `${gateway.url}/mcp`;
    }, 120_000);
    afterAll(async () => {
      await gateway?.close();
      process.env = saved;
    });

    it('张三 calls datatable over /mcp: the call runs as 张三 on channel mcp and is audited', async () => {
      const { token } = await issueMcpToken(gateway.db, { orgId: 'demo', roleId: 'default', contactKey: 'zhangsan' });
      const client = await connect(url, token);
      try {
        const { tools } = await client.listTools();
        const dt = tools.find((t) => t.name === 'datatable');
        expect(dt?.inputSchema).toMatchObject({ type: 'object', properties: { action: { type: 'string' } } });
        const res = await client.callTool({ name: 'datatable', arguments: { action: 'list_tables' } });
        expect(Array.isArray(res.content)).toBe(true);
        expect(res.structuredContent).toBeDefined();
      } finally {
        await client.close();
      }
      const rows = await queryAudit(gateway.db, { skill: 'datatable' });
      expect(rows[0]).toMatchObject({ channel: 'mcp', actorName: '张三', actorEmpNo: 'E1001', roleId: 'default' });
    });

    it('a confirmation comes back as the prompt plus its token; the second call with the token runs it once', async () => {
      const { token } = await issueMcpToken(gateway.db, { orgId: 'demo', roleId: 'default', contactKey: 'zhangsan' });
      const client = await connect(url, token);
      try {
        const asked = await client.callTool({ name: 'confirm_probe', arguments: { target: 'T1' } });
        const texts = (asked.content as Array<{ type: string; text: string }>).map((c) => c.text);
        expect(texts[0]).toBe('确认清空 T1？');
        const confirmToken = String((asked.structuredContent as { confirm_token: string }).confirm_token);
        expect(texts[1]).toContain(`"confirm_token": "${confirmToken}"`);
        const done = await client.callTool({ name: 'confirm_probe', arguments: { target: 'T1', confirm_token: confirmToken } });
        expect((done.content as Array<{ text: string }>)[0]!.text).toBe('已清空 T1');
        const again = await client.callTool({ name: 'confirm_probe', arguments: { target: 'T1', confirm_token: confirmToken } });
        expect(again.isError).toBe(true);
        expect((again.content as Array<{ text: string }>)[0]!.text).toContain('consumed');
      } finally {
        await client.close();
      }
    });

    it('notifications/cancelled from the client stops the running skill', async () => {
      const { token } = await issueMcpToken(gateway.db, { orgId: 'demo', roleId: 'default', contactKey: 'zhangsan' });
      const client = await connect(url, token);
      try {
        const stop = new AbortController();
        const call = client.callTool({ name: 'slow_stop', arguments: {} }, undefined, { signal: stop.signal });
        const session = () => getSession(gateway.db, mcpSessionId('demo', 'default', 'zhangsan'));
        await vi.waitFor(async () => expect(existsSync(join((await session())!.workspaceDir, 'started.txt'))).toBe(true), {
          timeout: 20_000,
          interval: 100,
        });
        stop.abort('user pressed stop');
        await expect(call).rejects.toThrow();
        const ws = (await session())!.workspaceDir;
        await vi.waitFor(() => expect(existsSync(join(ws, 'saw_abort.txt'))).toBe(true), { timeout: 20_000, interval: 100 });
        expect(existsSync(join(ws, 'finished.txt'))).toBe(false);
      } finally {
        await client.close();
      }
    });

    it('a token for a role without datatable does not see it, and calling it is refused', async () => {
      const { token } = await issueMcpToken(gateway.db, { orgId: 'demo', roleId: 'viewer', contactKey: 'zhangsan' });
      const client = await connect(url, token);
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toContain('help');
        expect(names).not.toContain('datatable');
        const before = (await queryAudit(gateway.db, { skill: 'datatable', roleId: 'viewer' })).length;
        const res = await client.callTool({ name: 'datatable', arguments: { action: 'list_tables' } });
        expect(res.isError).toBe(true);
        expect((await queryAudit(gateway.db, { skill: 'datatable', roleId: 'viewer' })).length).toBe(before);
      } finally {
        await client.close();
      }
    });

    it('a revoked token, an unknown token and no token get 401', async () => {
      const { token, tokenId } = await issueMcpToken(gateway.db, { orgId: 'demo', roleId: 'default', contactKey: 'zhangsan' });
      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      };
      const post = (auth?: string) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(auth ? { authorization: auth } : {}),
          },
          body: JSON.stringify(init),
        });
      expect((await post(`Bearer ${token}`)).status).toBe(200);
      expect(await revokeMcpToken(gateway.db, tokenId)).toBe(true);
      const revoked = await post(`Bearer ${token}`);
      expect(revoked.status).toBe(401);
      expect(revoked.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect((await post('Bearer mcp_not-a-token')).status).toBe(401);
      expect((await post()).status).toBe(401);
      await expect(connect(url, token)).rejects.toThrow();
    });

    it('a request from a foreign Origin is refused (DNS rebinding), loopback origins pass', async () => {
      const { token } = await issueMcpToken(gateway.db, { orgId: 'demo', roleId: 'default', contactKey: 'zhangsan' });
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      });
      const headers = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
      };
      expect((await fetch(url, { method: 'POST', headers: { ...headers, origin: 'http://evil.example' }, body })).status).toBe(403);
      expect((await fetch(url, { method: 'POST', headers: { ...headers, origin: `http://localhost:${gateway.port}` }, body })).status).toBe(
        200,
      );
    });
  });
}
