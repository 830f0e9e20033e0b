/**
 * `skillgate mcp token|tokens|revoke` through the real CLI on an embedded data dir
 * (docs/mcp.md "Tokens"): a token is issued once for a directory contact, listed by id only,
 * revoked; an unknown contact or role is refused with exit 1.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

describe('skillgate mcp token', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sg-mcp-cli-'));
  const env = { SKILLGATE_DATA_DIR: join(dir, 'data') };
  const cli = (args: string[]) => runCli(args, { cwd: dir, env, timeoutMs: 170_000 });

  it('issues, lists and revokes; refuses an unknown contact or role', async () => {
    writeFileSync(join(dir, 'dir.csv'), 'contact_key,name,emp_no\nzhangsan,张三,E1001\n');
    expect((await cli(['directory', 'import', join(dir, 'dir.csv')])).code).toBe(0);

    const issued = await cli(['mcp', 'token', 'zhangsan', '--json']);
    expect(issued.code, issued.stderr).toBe(0);
    const doc = JSON.parse(issued.stdout) as Record<string, string>;
    expect(doc).toMatchObject({
      contact_key: 'zhangsan',
      name: '张三',
      role_id: 'default',
      org_id: 'demo',
      url: 'http://localhost:8787/mcp',
    });
    expect(doc.token).toMatch(/^mcp_[A-Za-z0-9_-]{43}$/);

    const listed = await cli(['mcp', 'tokens', '--json']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(doc.token!);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ tokenId: doc.token_id, contactKey: 'zhangsan', roleId: 'default', revokedAt: null }),
    ]);

    expect((await cli(['mcp', 'revoke', doc.token_id!])).code).toBe(0);
    expect((await cli(['mcp', 'revoke', doc.token_id!])).code).toBe(1);
    const refused = await cli(['mcp', 'token', 'nobody']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('"nobody" is not in the directory');
    expect((await cli(['mcp', 'token', 'zhangsan', '--role', 'nope'])).code).toBe(1);
  }, 600_000);
});
