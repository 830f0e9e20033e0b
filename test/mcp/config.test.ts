/**
 * The `mcp_servers:` block (docs/mcp.md "Configuration"): defaults, `$VAR` substitution inside
 * values, refusals naming the key; and the `roles:` of a server limiting who sees its tools.
 */
import { describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../src/config/file.ts';
import { enabledFor } from '../../src/lifecycle/scope.ts';
import { mcpSkillName } from '../../src/mcp/records.ts';

const D = { orgId: 'demo', roleId: 'default' };

describe('mcp_servers config', () => {
  it('applies defaults and substitutes $VAR inside header and env values', () => {
    const c = parseConfigFile(
      `roles: [{id: ops}]
mcp_servers:
  - {name: everything, transport: stdio, command: npx, args: ["-y", "pkg"], env: {API_KEY: $K}}
  - {name: tickets, transport: http, url: "https://t.example/mcp", headers: {Authorization: "Bearer \${TOK}"}, roles: [ops], tools: [create], timeout_sec: 5}
`,
      D,
      { K: 'k1', TOK: 'secret-token' },
    );
    expect(c.mcp_servers).toEqual([
      {
        name: 'everything',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'pkg'],
        env: { API_KEY: 'k1' },
        headers: {},
        roles: ['*'],
        tools: ['*'],
        timeout_sec: 60,
      },
      {
        name: 'tickets',
        transport: 'http',
        url: 'https://t.example/mcp',
        args: [],
        env: {},
        headers: { Authorization: 'Bearer secret-token' },
        roles: ['ops'],
        tools: ['create'],
        timeout_sec: 5,
      },
    ]);
    expect(parseConfigFile('', D).mcp_servers).toBeUndefined();
  });

  it.each([
    ['mcp_servers: [{name: a, transport: stdio}]', 'mcp_servers[0].command'],
    ['mcp_servers: [{name: a, transport: http, url: "ftp://x"}]', 'mcp_servers[0].url'],
    ['mcp_servers: [{name: a, transport: stdio, command: x}, {name: a, transport: stdio, command: y}]', 'mcp_servers[1].name'],
    ['mcp_servers: [{name: a, transport: stdio, command: x, roles: [nope]}]', 'mcp_servers[0].roles'],
    ['mcp_servers: [{name: a, transport: stdio, command: x, env: {K: $UNSET_VAR}}]', 'mcp_servers[0].env.K'],
    ['mcp_servers: [{name: a__b, transport: stdio, command: x}]', 'mcp_servers[0].name'],
    ['mcp_servers: [{name: a, transport: ws, command: x}]', 'mcp_servers[0].transport'],
  ])('refuses %s naming %s', (yaml, key) => {
    expect(() => parseConfigFile(yaml, D, {})).toThrow(expect.objectContaining({ key }));
  });

  it('normalises tool names into skill names', () => {
    expect(mcpSkillName('everything', 'get-tiny-image')).toBe('everything__get-tiny-image');
    expect(mcpSkillName('fs', 'Read File.v2')).toBe('fs__read_file_v2');
    expect(mcpSkillName('s', 'x'.repeat(80))).toHaveLength(64);
  });

  it("a server's roles limit who sees its tools, before the role's skills list", () => {
    const rec = { name: 'tickets__create', source: 'shared' as const, mcp: { roles: ['ops'] } };
    expect(enabledFor(rec, 'ops', '*', new Map())).toBe(true);
    expect(enabledFor(rec, 'default', '*', new Map())).toBe(false);
    expect(enabledFor(rec, 'default', ['tickets__create'], new Map([['default', new Map([['tickets__create', true]])]]))).toBe(false);
    expect(enabledFor({ ...rec, mcp: { roles: ['*'] } }, 'default', '*', new Map())).toBe(true);
  });
});
