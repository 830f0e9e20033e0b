/**
 * Console section `mcp` (docs/mcp.md "Tokens"): issue a token for a directory contact (shown
 * once, then only its id is listed), the token verifies; revoke it and it no longer does.
 */
import { BUILD_DIRECTORY_CHANNELS } from '../helpers/channels.ts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mcpSection } from '../../src/console/api/mcp.ts';
import type { AdminConsoleDeps } from '../../src/console/index.ts';
import { importDirectory } from '../../src/identity/import.ts';
import { verifyMcpToken } from '../../src/mcp/server/tokens.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { startConsoleRig, type ConsoleRig } from './rig.ts';

describeEachEngine('console section mcp: MCP tokens', (db) => {
  let rig: ConsoleRig;
  beforeAll(async () => {
    rig = await startConsoleRig(db(), { deps: { sections: [mcpSection] } as Partial<AdminConsoleDeps> });
    const rep = await importDirectory(db(), {
      orgId: 'demo',
      roleId: 'default',
      data: JSON.stringify({ contacts: [{ contact_key: 'zhangsan', name: '张三', emp_no: 'E1001' }] }),
      format: 'json',
      channels: BUILD_DIRECTORY_CHANNELS,
    });
    expect(rep.errors).toEqual([]);
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('refuses without a credential', async () => {
    expect((await rig.call('mcp/tokens', { auth: null })).status).toBe(401);
  });

  it('issues a token for a contact and role, lists it by id only, and revokes it', async () => {
    const issued = await rig.call('mcp/tokens', { method: 'POST', body: { contact_key: 'zhangsan', role: 'ops' } });
    expect(issued.status).toBe(200);
    expect(issued.json).toMatchObject({ contact_key: 'zhangsan', name: '张三', role_id: 'ops', org_id: 'demo' });
    const token: string = issued.json.token;
    expect(token).toMatch(/^mcp_/);
    expect(await verifyMcpToken(db(), token)).toMatchObject({ roleId: 'ops', contactKey: 'zhangsan', tokenId: issued.json.token_id });

    const listed = await rig.call('mcp/tokens');
    const row = listed.json.tokens.find((t: { tokenId: string }) => t.tokenId === issued.json.token_id);
    expect(row).toMatchObject({ roleId: 'ops', contactKey: 'zhangsan', revokedAt: null });
    expect(JSON.stringify(listed.json)).not.toContain(token);

    expect((await rig.call('mcp/revoke', { method: 'POST', body: { token_id: issued.json.token_id } })).status).toBe(200);
    expect(await verifyMcpToken(db(), token)).toBeNull();
    expect((await rig.call('mcp/revoke', { method: 'POST', body: { token_id: issued.json.token_id } })).status).toBe(404);
  });

  it('refuses an unknown role or a contact not in the directory', async () => {
    expect((await rig.call('mcp/tokens', { method: 'POST', body: { contact_key: 'zhangsan', role: 'nope' } })).json.code).toBe('refused');
    const missing = await rig.call('mcp/tokens', { method: 'POST', body: { contact_key: 'nobody', role: 'default' } });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toContain('nobody');
  });
});
