/**
 * MCP servers' tools as skills (docs/mcp.md), against servers built with the SDK in the test
 * (test/fixtures/mcp/tool-server.ts) over stdio, streamable HTTP and HTTP+SSE: listing, a call, stop
 * cancels the request on the server, the wall, isError, tools/list_changed, a crash mid-call.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfigFile } from '../../src/config/file.ts';
import type { RawOutcome } from '../../src/envelope/types.ts';
import { executeSkill } from '../../src/executor/index.ts';
import { createSkillLifecycle } from '../../src/lifecycle/live.ts';
import { createLogger } from '../../src/log/logger.ts';
import type { McpServerConfig } from '../../src/config/mcp-servers.ts';
import { createMcpSource, type McpSkillSource } from '../../src/mcp/source.ts';
import type { SkillRecord } from '../../src/registry/types.ts';
import type { RuntimeContext } from '../../src/runtime/types.ts';
import { startHttpToolServer, startSseToolServer, type HttpToolServer } from './http-tool-server.ts';
import { looseRequest } from '../helpers/request.ts';

const RUN_TS = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL('../fixtures/mcp/stdio-server.ts', import.meta.url));
const log = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });

/** A server under test: its config and what it saw. */
interface Bed {
  config: McpServerConfig;
  events(): string[];
  close(): Promise<void>;
}

async function stdioBed(): Promise<Bed> {
  const dir = mkdtempSync(join(tmpdir(), 'sg-mcp-'));
  const file = join(dir, 'events.log');
  writeFileSync(file, '');
  return {
    config: {
      name: 't',
      transport: 'stdio',
      command: process.execPath,
      args: [RUN_TS, STDIO_SERVER],
      env: { MCP_EVENTS: file },
      headers: {},
      roles: ['*'],
      tools: ['*'],
      timeout_sec: 30,
    },
    events: () => readFileSync(file, 'utf8').split('\n').filter(Boolean),
    close: async () => undefined,
  };
}

async function httpBed(): Promise<Bed> {
  const s: HttpToolServer = await startHttpToolServer();
  return {
    config: { name: 't', transport: 'http', url: s.url, args: [], env: {}, headers: {}, roles: ['*'], tools: ['*'], timeout_sec: 30 },
    events: () => [...s.events],
    close: () => s.close(),
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function sourceFor(bed: Bed, extra: Partial<McpServerConfig> = {}): Promise<McpSkillSource> {
  const source = createMcpSource([{ ...bed.config, ...extra }], { log });
  cleanups.push(
    () => bed.close(),
    () => source.close(),
  );
  await source.ready();
  return source;
}

function record(source: McpSkillSource, name: string): SkillRecord {
  const rec = source.records().find((r) => r.name === name);
  if (!rec)
    throw new Error(
      `no record ${name}: ${source
        .records()
        .map((r) => r.name)
        .join(', ')}`,
    );
  return rec;
}

function ctxFor(): RuntimeContext {
  return { workspace_dir: mkdtempSync(join(tmpdir(), 'sg-mcp-ws-')), abort_signal: null } as unknown as RuntimeContext;
}

function run(
  rec: SkillRecord,
  input: Record<string, unknown>,
  o: { wallSec?: number; abortSignal?: AbortSignal; onProgress?: (n: string) => void } = {},
): Promise<RawOutcome> {
  return executeSkill(rec, input, ctxFor(), {
    wallSec: o.wallSec ?? 30,
    subprocessTimeoutSec: 30,
    abortSignal: o.abortSignal,
    log,
    onProgress: o.onProgress,
  });
}

function value(o: RawOutcome): Record<string, unknown> {
  expect(o.kind).toBe('returned');
  return (o as { value: Record<string, unknown> }).value;
}

async function sseBed(): Promise<Bed> {
  const s: HttpToolServer = await startSseToolServer();
  return {
    config: { name: 't', transport: 'sse', url: s.url, args: [], env: {}, headers: {}, roles: ['*'], tools: ['*'], timeout_sec: 30 },
    events: () => [...s.events],
    close: () => s.close(),
  };
}

describe.each([
  ['stdio', stdioBed],
  ['streamable HTTP', httpBed],
  ['HTTP+SSE', sseBed],
] as const)('MCP client over %s', (_label, makeBed) => {
  it('lists the tools as skills <server>__<tool> with the server schema, and calls one', async () => {
    const source = await sourceFor(await makeBed());
    expect(source.records().map((r) => r.name)).toEqual([
      't__echo',
      't__slow',
      't__crash',
      't__fail',
      't__picture',
      't__add_tool',
      't__progress',
      't__release',
    ]);
    const echo = record(source, 't__echo');
    expect(echo.execType).toBe('MCP');
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
    const v = value(await run(echo, { message: '你好' }));
    expect(v).toMatchObject({ success: true, result: 'echo: 你好', display_md: 'echo: 你好' });
  });

  it('the tools allow-list limits the skills', async () => {
    const source = await sourceFor(await makeBed(), { tools: ['echo', 'fail'] });
    expect(source.records().map((r) => r.name)).toEqual(['t__echo', 't__fail']);
  });

  it('stop cancels the request on the server (notifications/cancelled)', async () => {
    const bed = await makeBed();
    const source = await sourceFor(bed);
    const stop = new AbortController();
    const call = run(record(source, 't__slow'), {}, { abortSignal: stop.signal });
    await vi.waitFor(() => expect(bed.events()).toContain('called:slow'), { timeout: 10_000 });
    stop.abort(new Error('user pressed stop'));
    const out = await call;
    expect(out).toMatchObject({ kind: 'failed', error: 'skill "t__slow" was stopped (user pressed stop)', details: { aborted: true } });
    await vi.waitFor(() => expect(bed.events()).toContain('cancelled:slow'), { timeout: 10_000 });
  });

  it('a slow server hits the wall: a timeout failure, and the server is told to cancel', async () => {
    const bed = await makeBed();
    const source = await sourceFor(bed);
    const out = await run(record(source, 't__slow'), {}, { wallSec: 0.5 });
    expect(out).toMatchObject({ kind: 'failed', error_type: 'transient', details: { timeout: true } });
    expect((out as { error: string }).error).toMatch(/^skill "t__slow" timed out after/);
    await vi.waitFor(() => expect(bed.events()).toContain('cancelled:slow'), { timeout: 10_000 });
  });

  it('progress notifications reach the caller as progress notes', async () => {
    const source = await sourceFor(await makeBed());
    const notes: string[] = [];
    const call = run(record(source, 't__progress'), {}, { onProgress: (n) => notes.push(n) });
    await vi.waitFor(() => expect(notes).toEqual(['t__progress: half way (50%)']), { timeout: 10_000 });
    value(await run(record(source, 't__release'), {}));
    expect(value(await call)).toMatchObject({ result: 'progress done' });
  });

  it('isError becomes success:false with the server message', async () => {
    const source = await sourceFor(await makeBed());
    expect(value(await run(record(source, 't__fail'), {}))).toEqual({
      success: false,
      error: 'the table is locked',
      error_type: 'recoverable',
    });
  });

  it('an image block becomes a declared image file in the workspace', async () => {
    const source = await sourceFor(await makeBed());
    const v = value(await run(record(source, 't__picture'), {}));
    expect(v.result).toBe('a picture');
    const images = v.images as Array<{ local_path: string; filename: string }>;
    expect(images).toHaveLength(1);
    expect(images[0]!.filename).toMatch(/\.png$/);
    expect(readFileSync(images[0]!.local_path).subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('tools/list_changed refreshes the live registry', async () => {
    const bed = await makeBed();
    const source = createMcpSource([bed.config], { log });
    cleanups.push(() => bed.close());
    const config = parseConfigFile('', { orgId: 'demo', roleId: 'default' });
    const dataDir = mkdtempSync(join(tmpdir(), 'sg-mcp-data-'));
    const lifecycle = await createSkillLifecycle({ settings: { dataDir, skillRoots: [] }, config, log, watch: false, mcp: source });
    cleanups.push(() => lifecycle.close());
    const changes: string[][] = [];
    lifecycle.onChange((r) => void changes.push(r.added));
    expect(lifecycle.registry().get('t__extra')).toBeUndefined();
    expect(
      lifecycle
        .registry()
        .tools({ skills: lifecycle.skillsFor('default') })
        .map((t) => t.function.name),
    ).toContain('t__echo');
    value(await run(record(source, 't__add_tool'), {}));
    await vi.waitFor(() => expect(lifecycle.registry().get('t__extra')).toBeDefined(), { timeout: 10_000 });
    await vi.waitFor(() => expect(changes).toContainEqual(['t__extra']), { timeout: 10_000 });
    expect(value(await run(lifecycle.registry().get('t__extra')!, { message: 'x' }))).toMatchObject({ result: 'echo: x' });
  });

  it('a server that crashes mid-call fails the call clearly; later calls fail at once while it is down', async () => {
    const source = await sourceFor(await makeBed());
    const v = value(await run(record(source, 't__crash'), {}));
    expect(v).toMatchObject({
      success: false,
      error: 'MCP server "t" closed the connection during the call of "crash"',
      error_type: 'transient',
      details: { mcp_server: 't' },
    });
    expect(String(v.user_message)).toContain('MCP 服务「t」暂时不可用');
    await vi.waitFor(() => expect(source.status()[0]!.state).toBe('down'), { timeout: 10_000 });
    const again = value(await run(record(source, 't__echo'), { message: 'x' }));
    expect(again).toMatchObject({ success: false, error_type: 'transient' });
    expect(String(again.error)).toContain('MCP server "t" is not available');
    // The records stay listed while the server is down.
    expect(source.records().map((r) => r.name)).toContain('t__echo');
  });
});

describe('MCP client: a server that is down', () => {
  it('does not stop the others, fails at once during its backoff, and reconnects after it', async () => {
    const bed = await stdioBed();
    let now = 1_000_000;
    const source = createMcpSource([{ ...bed.config, name: 'dead', command: join(tmpdir(), 'no-such-mcp-server') }, bed.config], {
      log,
      now: () => now,
    });
    cleanups.push(() => source.close());
    await source.ready();
    expect(source.status().map((s) => s.state)).toEqual(['down', 'ready']);
    expect(source.records().map((r) => r.name)).toContain('t__echo');

    value(await run(record(source, 't__crash'), {}));
    await vi.waitFor(() => expect(source.status()[1]!.state).toBe('down'), { timeout: 10_000 });
    const during = value(await run(record(source, 't__echo'), { message: 'a' }));
    expect(String(during.error)).toContain('MCP server "t" is not available');
    expect(bed.events().filter((e) => e === 'called:echo')).toHaveLength(0);
    now += 1_001; // first backoff step: 1 s
    expect(value(await run(record(source, 't__echo'), { message: 'b' }))).toMatchObject({ success: true, result: 'echo: b' });
    expect(source.status()[1]!.state).toBe('ready');
  });
});

describe('MCP progress and errors through the whole skill call', () => {
  it("a tool's progress notifications reach the request's onProgress (the chat's progress line)", async () => {
    const { openEmbeddedDb } = await import('../../src/store/open.ts');
    const { migrate } = await import('../../src/store/migrate.ts');
    const { runSkill } = await import('../../src/wiring/skill-call.ts');
    const { resolveWalls } = await import('../../src/config/walls.ts');
    const { randomBytes } = await import('node:crypto');
    const source = await sourceFor(await stdioBed());
    const config = parseConfigFile('', { orgId: 'demo', roleId: 'default' });
    const dataDir = mkdtempSync(join(tmpdir(), 'sg-mcp-call-'));
    const lifecycle = await createSkillLifecycle({ settings: { dataDir, skillRoots: [] }, config, log, watch: false, mcp: source });
    cleanups.push(() => lifecycle.close());
    const db = await openEmbeddedDb();
    cleanups.push(() => db.close());
    await migrate(db);
    const services = {
      db,
      registry: lifecycle.registry(),
      settings: { dataDir, walls: resolveWalls({}), fetchAllow: [], llm: undefined },
      secretKey: randomBytes(32),
      log,
    };
    const notes: string[] = [];
    const defaults = {
      role_id: 'default',
      org_id: 'demo',
      session_id: 'mcp-progress',
      channel: 'web',
      chat_mode: true,
      allow_sql: false,
      team_role: 'member',
      is_admin: false,
    };
    const call = runSkill(
      services,
      looseRequest({
        skill: 't__progress',
        input: {},
        defaults,
        line: 'chat',
        lang: 'en',
        onProgress: (n) => notes.push(n),
      }),
    );
    await vi.waitFor(() => expect(notes).toEqual(['t__progress: half way (50%)']), { timeout: 15_000 });
    await runSkill(services, looseRequest({ skill: 't__release', input: {}, defaults, line: 'chat' }));
    expect(await call).toMatchObject({ success: true, result: 'progress done' });
  });

  it("a server that is down is said so in the person's language", async () => {
    const { unavailableMessage } = await import('../../src/mcp/run.ts');
    expect(unavailableMessage('files')).toBe('MCP 服务「files」暂时不可用，请稍后再试。');
    expect(unavailableMessage('files', 'en')).toBe('The MCP server "files" is not available right now; try again later.');
  });
});
