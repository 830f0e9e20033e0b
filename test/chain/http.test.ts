/**
 * `POST /skills/chain/save` and `POST /skills/chain/test` on a real HTTP server (docs/chains.md;
 * R-CHAIN-24..26), and a saved chain as a skill of type chain (R-CHAIN-25).
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, expect, it } from 'vitest';
import { parseConfigFile } from '../../src/config/file.ts';
import type { ChainServices } from '../../src/chain/skill.ts';
import { requireBearer } from '../../src/http/local-auth.ts';
import { createChainRouter } from '../../src/http/chains.ts';
import { withChainRegistry } from '../../src/chain/services.ts';
import { runSkill } from '../../src/wiring/skill-call.ts';
import { setChainEnabled } from '../../src/chain/store.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { seedDemoDirectory } from '../../src/identity/index.ts';
import { callerDefaults, chainServices } from './helpers.ts';
import { looseRequest } from '../helpers/request.ts';

const chain = (over: Record<string, unknown> = {}) => ({
  name: 'http_chain',
  description: '查询并回显',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  steps: [
    { skill_name: 'lookup_out', alias: 'q' },
    { skill_name: 'echo', alias: 'e', params: { city: '{city}', total: '$steps.q.total' } },
  ],
  cost_tier: 'low',
  ...over,
});

describeEachEngine('chain HTTP routes', (db) => {
  let services: ChainServices;
  let server: Server | undefined;
  let base = '';
  const TOKEN = 'admin-token-for-chain-tests';

  const up = async () => {
    if (server) return;
    services = await chainServices(db());
    const app = express();
    app.use(
      createChainRouter({
        services,
        config: parseConfigFile('', { orgId: 'demo', roleId: 'default' }),
        defaultRoleId: 'default',
        auth: requireBearer(TOKEN),
      }),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server!.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  afterAll(async () => {
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
  });
  const post = (path: string, body: unknown, token = TOKEN) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });

  it('R-CHAIN-24: a refused chain is 422 with the problems listed; no token is 401', async () => {
    await up();
    expect((await post('/skills/chain/save', chain(), 'wrong')).status).toBe(401);
    const res = await post('/skills/chain/save', chain({ cost_tier: 'huge', name: 'Bad-Name' }));
    expect(res.status).toBe(422);
    const body = (await res.json()) as { ok: boolean; problems: { code: string; item: string }[] };
    expect(body.ok).toBe(false);
    expect(body.problems.map((p) => p.code).sort()).toEqual(['cost_tier.invalid', 'name.pattern']);
  });

  it('R-CHAIN-25: a saved chain is a skill of type chain, listed as a tool while enabled, and callable like any skill', async () => {
    await up();
    const res = await post('/skills/chain/save', chain());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, name: 'http_chain', enabled: true });
    const svc = await withChainRegistry(services);
    expect(svc.registry.get('http_chain')?.skillType).toBe('chain');
    const tool = svc.registry.tools().find((t) => t.function.name === 'http_chain');
    expect(tool?.function.description).toBe('查询并回显');
    expect(Object.keys((tool!.function.parameters as { properties: object }).properties)).toEqual(['city']);

    const env = await runSkill(
      svc,
      looseRequest({ skill: 'http_chain', input: { city: '深圳' }, defaults: callerDefaults(), line: 'chat' }),
    );
    expect(env.ok).toBe(true);
    expect((env.steps as Record<string, { input: unknown }>).e!.input).toEqual({ city: '深圳', total: 2 });

    await setChainEnabled(db(), 'http_chain', false);
    expect((await withChainRegistry(services)).registry.tools().map((t) => t.function.name)).not.toContain('http_chain');
    // re-saving its own name is allowed; a chain calling it is refused as nested
    expect((await post('/skills/chain/save', chain())).status).toBe(200);
    const nested = await post(
      '/skills/chain/save',
      chain({ name: 'outer', steps: [{ skill_name: 'http_chain', alias: 'x', params: { c: '{city}' } }] }),
    );
    expect(nested.status).toBe(422);
    expect(((await nested.json()) as { problems: { code: string }[] }).problems.map((p) => p.code)).toEqual(['step.nested_chain']);
  });

  it('R-CHAIN-26: /skills/chain/test refuses a missing required input before running, then runs for real', async () => {
    await up();
    const refused = await post('/skills/chain/test', { chain: chain({ name: 'adhoc' }), input: {} });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { problems: { item: string }[] }).problems.map((p) => p.item)).toEqual(['{city}']);
    const ran = await post('/skills/chain/test', { name: 'http_chain', input: { city: '广州' } });
    expect(ran.status).toBe(200);
    const result = (await ran.json()) as { ok: boolean; steps: Record<string, { input: unknown; ctx: { chat_mode: unknown } }> };
    expect(result.ok).toBe(true);
    expect(result.steps.e!.input).toEqual({ city: '广州', total: 2 });
    expect(result.steps.e!.ctx.chat_mode).toBe(false);
    const unknownPerson = await post('/skills/chain/test', { name: 'http_chain', input: { city: 'x' }, emp_no: 'E-404' });
    expect(unknownPerson.status).toBe(422);
    await seedDemoDirectory(db(), 'demo');
    const asWorker = await post('/skills/chain/test', { name: 'http_chain', input: { city: 'x' }, emp_no: 'E2001' });
    expect(asWorker.status).toBe(200);
    expect(((await asWorker.json()) as { steps: { e: { ctx: { actor_name: unknown } } } }).steps.e.ctx.actor_name).toBe('李四');
  });
});
