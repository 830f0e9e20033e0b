/**
 * The HTTP example skill `skills/examples/gateway_health` asks the gateway's own port (a
 * fresh user's test: a gateway on PORT=8931 must not query 8787): `$PORT` resolves from the skill's
 * stored parameter, else the process environment's PORT (R-CFG-04 order; A-47 HTTP exec).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { executeSkill } from '../../src/executor/index.ts';
import { loadSkill } from '../../src/registry/discover.ts';
import type { SkillRecord } from '../../src/registry/types.ts';
import { execOptions, makeCtx, tempWorkspace } from './exec-helpers.ts';

const EXAMPLES = fileURLToPath(new URL('../../skills/examples/', import.meta.url));

let server: Server;
let port = 0;
const paths: string[] = [];
let skill: SkillRecord;

beforeAll(async () => {
  server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, from: 'this gateway' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  skill = await loadSkill(`${EXAMPLES}gateway_health`, { dir: EXAMPLES, source: 'builtin' });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

it('R-CFG-04 A-47 gateway_health asks /healthz on the port of $PORT (stored parameter, then the process env), no hard-coded port', async () => {
  expect(skill).toMatchObject({ status: 'ok', execType: 'HTTP' });
  const ws = await tempWorkspace();
  paths.length = 0;
  const viaParam = await executeSkill(skill, {}, makeCtx(ws, { skill_configs: { gateway_health: { PORT: String(port) } } }), execOptions());
  expect(viaParam).toEqual({ kind: 'returned', value: { ok: true, from: 'this gateway' } });
  const saved = process.env.PORT;
  process.env.PORT = String(port);
  try {
    const viaEnv = await executeSkill(skill, {}, makeCtx(ws), execOptions());
    expect(viaEnv).toEqual({ kind: 'returned', value: { ok: true, from: 'this gateway' } });
  } finally {
    if (saved === undefined) delete process.env.PORT;
    else process.env.PORT = saved;
  }
  expect(paths).toEqual(['/healthz', '/healthz']);
});
