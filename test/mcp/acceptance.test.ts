/**
 * The acceptance examples of docs/mcp.md with the real `@modelcontextprotocol/server-everything`
 * over stdio (`npx -y`, found in this repo's node_modules — `npm_config_offline` proves no
 * download): `skill list --json` and `skill run` through the real CLI; the model planner with a
 * scripted model (test/planner/fake-llm.ts); the web chat of a real gateway over its socket,
 * which also re-exports the MCP tool at its own /mcp.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadSettings } from '../../src/config/settings.ts';
import { startGateway, type Gateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { McpServerConfig } from '../../src/config/mcp-servers.ts';
import { issueMcpToken } from '../../src/mcp/server/tokens.ts';
import { createMcpSource, type McpSkillSource } from '../../src/mcp/source.ts';
import { makeRegistry } from '../../src/registry/discover.ts';
import { runCli } from '../helpers/cli.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { callTools, FakeLlm, lastToolResult, say } from '../planner/fake-llm.ts';
import { plannerHarness, textOf } from '../planner/harness.ts';
import { Client as WsClient } from '../web/helpers.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const YAML = `mcp_servers:
  - name: everything
    transport: stdio
    command: npx
    args: ["-y", "@modelcontextprotocol/server-everything"]
    env: {npm_config_offline: "true"}
    roles: ["*"]
    tools: ["*"]
    timeout_sec: 60
`;
const EVERYTHING: McpServerConfig = {
  name: 'everything',
  transport: 'stdio',
  command: 'npx',
  args: ['-y', '@modelcontextprotocol/server-everything'],
  env: { npm_config_offline: 'true' },
  headers: {},
  roles: ['*'],
  tools: ['*'],
  timeout_sec: 60,
};

function configDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sg-mcp-acc-'));
  writeFileSync(join(dir, 'skillgate.config.yaml'), YAML);
  return dir;
}

describe('MCP acceptance: the CLI with server-everything', () => {
  const dir = configDir();
  const env = { SKILLGATE_CONFIG: join(dir, 'skillgate.config.yaml'), SKILLGATE_DATA_DIR: join(dir, 'data') };

  // A one-shot CLI starts tsx, the server through npx and (for run) the embedded database: slow
  // on a busy machine, so these carry generous limits (no timing is asserted).
  const cli = (args: string[]) => runCli(args, { cwd: REPO, env, timeoutMs: 170_000 });

  it('skill list --json lists everything__echo with the server schema', async () => {
    const r = await cli(['skill', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const tools = JSON.parse(r.stdout) as Array<{ function: { name: string; description: string; parameters: Record<string, unknown> } }>;
    const echo = tools.find((t) => t.function.name === 'everything__echo');
    expect(echo?.function).toEqual({
      name: 'everything__echo',
      description: 'Echoes back the input string',
      parameters: { type: 'object', properties: { message: { type: 'string', description: 'Message to echo' } }, required: ['message'] },
    });
  }, 180_000);

  it('skill run everything__echo prints an envelope whose result contains 你好', async () => {
    const r = await cli(['skill', 'run', 'everything__echo', '--input', '{"message":"你好"}']);
    expect(r.code, r.stderr).toBe(0);
    const envelope = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(envelope).toMatchObject({ success: true, artifacts: [] });
    expect(String(envelope.result)).toContain('你好');
  }, 180_000);

  it('skill run of the image tool gives an image artifact', async () => {
    const img = await cli(['skill', 'run', 'everything__get-tiny-image']);
    expect(img.code, img.stderr).toBe(0);
    const withImage = JSON.parse(img.stdout) as { artifacts: Array<{ media: string; filename: string }> };
    expect(withImage.artifacts).toHaveLength(1);
    expect(withImage.artifacts[0]).toMatchObject({ media: 'image', filename: expect.stringMatching(/\.png$/) });
  }, 180_000);
});

const llm = new FakeLlm();
describeEachEngine('MCP acceptance: the model planner calls an MCP tool', (db) => {
  let source: McpSkillSource;
  beforeAll(async () => {
    await llm.start();
    source = createMcpSource([EVERYTHING], {
      log: createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) }),
    });
    await source.ready();
  }, 120_000);
  afterAll(async () => {
    await source?.close();
    await llm.close();
  });

  it('the model sees everything__echo, calls it, gets 你好 back; the image tool becomes a media item', async () => {
    const h = await plannerHarness(db(), llm);
    h.services.registry = makeRegistry([...h.services.registry.all(), ...source.records()]);
    llm.script(
      {
        check: (req) => expect((req.tools ?? []).map((t) => t.function.name)).toContain('everything__echo'),
        reply: callTools(['everything__echo', { message: '你好' }]),
      },
      {
        check: (req) => expect(String(lastToolResult(req).result)).toContain('你好'),
        reply: say('服务器回答：你好'),
      },
    );
    expect(textOf(await h.turn({ raw_input: '让 everything 回声 你好' }))).toContain('你好');
    llm.assertDone();

    llm.script({ reply: callTools(['everything__get-tiny-image', {}]) }, { reply: say('图片在上面') });
    const out = await h.turn({ raw_input: '给我一张小图' });
    llm.assertDone();
    const media = out.flatMap((m) => m.media ?? []);
    expect(media).toHaveLength(1);
    expect(media[0]).toMatchObject({ kind: 'image' });
  });
});

describe('MCP acceptance: the web chat of a gateway', () => {
  let gateway: Gateway;
  const saved = { ...process.env };
  beforeAll(async () => {
    const dir = configDir();
    delete process.env.SKILLGATE_PUBLIC_URL;
    delete process.env.LLM_BASE_URL;
    gateway = await startGateway(
      loadSettings({ SKILLGATE_DATA_DIR: join(dir, 'data'), PORT: '0', SKILLGATE_CONFIG: join(dir, 'skillgate.config.yaml') }, dir),
      createLogger({ level: 'silent' }),
      {},
    );
  }, 120_000);
  afterAll(async () => {
    await gateway?.close();
    process.env = saved;
  });

  it('/everything__echo message=你好 answers 你好; /everything__get-tiny-image sends a media frame; /mcp re-exports the tool', async () => {
    // The gateway connects to the server in the background: its own /mcp shows when the tool is there.
    const { token } = await issueMcpToken(gateway.db, { orgId: 'demo', roleId: 'default', contactKey: 'demo_reporter' });
    const agent = new McpClient({ name: 'agent', version: '1' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    );
    try {
      await vi.waitFor(async () => expect((await agent.listTools()).tools.map((t) => t.name)).toContain('everything__echo'), {
        timeout: 60_000,
        interval: 200,
      });
      const viaMcp = await agent.callTool({ name: 'everything__echo', arguments: { message: '你好' } });
      expect(JSON.stringify(viaMcp.content)).toContain('你好');
    } finally {
      await agent.close();
    }

    const c = await WsClient.open(`ws://127.0.0.1:${gateway.port}/ws`);
    try {
      c.send({ type: 'hello', id: 'c_1', auth: { scheme: 'demo', contact: 'demo_reporter' } });
      expect((await c.next((f) => f.type === 'hello.ok' || f.type === 'error')).type).toBe('hello.ok');
      c.send({ type: 'user.message', client_msg_id: 'mcp_echo_1', text: '/everything__echo message=你好' });
      const reply = await c.next((f) => f.type === 'assistant.message' && f.reply_to === 'mcp_echo_1' && f.final === true);
      expect(`${String(reply.text)}\n${String(reply.display_md ?? '')}`).toContain('Echo: 你好');
      c.send({ type: 'user.message', client_msg_id: 'mcp_img_1', text: '/everything__get-tiny-image' });
      const media = await c.next((f) => f.type === 'assistant.media' && f.reply_to === 'mcp_img_1');
      expect(media.media).toMatchObject({ kind: 'image', mime_type: 'image/png', url: expect.stringMatching(/^\/files\//) });
    } finally {
      c.close();
    }
  }, 120_000);
});
