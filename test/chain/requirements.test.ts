/**
 * Chain requirements traced one by one (docs/requirements.md, the R-CHAIN table): R-CHAIN-01, 03,
 * 04, 06, 07, 08, 14, 34, 39 (R-ID-02), 40, 42, 43, 44, 46, 47, 48, 49 (R-DT-95), with the D-05 /
 * D-06 resolutions. Database tests run on PGlite and, with TEST_DATABASE_URL, on the server.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHAIN_DOCUMENT_SCHEMA, STEP_KEYS } from '../../src/chain/document.ts';
import { CHAIN_POLICY, SCHEDULE_POLICY, confirmationAsFailure, declaredStepWallSec, policyForLine } from '../../src/chain/policy.ts';
import { REFERENCE_NAME_RE, referencesIn, resolveParams, wholeReference } from '../../src/chain/references.ts';
import { continueValue, runChain, type ChainResult, type StepCall } from '../../src/chain/runner.ts';
import { validateAndSave, withChainRegistry } from '../../src/chain/services.ts';
import { lookupContext, pipelineStepExecutor, runChainDocument, type ChainRunRequest, type ChainServices } from '../../src/chain/skill.ts';
import { validateChain } from '../../src/chain/validate.ts';
import { loadSettings } from '../../src/config/settings.ts';
import { resolveWalls } from '../../src/config/walls.ts';
import { runSkill, withCall } from '../../src/wiring/skill-call.ts';
import { createLogger } from '../../src/log/logger.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import { formatTriggeredAt } from '../../src/runtime/coerce.ts';
import { pipelineFire } from '../../src/schedule/fire.ts';
import type { Db } from '../../src/store/db.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { CHAIN_FIXTURES, callerDefaults, chainServices, probeKey, probeState } from './helpers.ts';
import { looseRequest, looseChainRequest, type LooseChainExtra } from '../helpers/request.ts';

const REQ_FIXTURES = join(CHAIN_FIXTURES, 'requirements');
const BUILTIN_SKILLS = fileURLToPath(new URL('../../skills/', import.meta.url));
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Services with the chain fixtures, this file's fixtures and the built-in skills (datatable). */
function reqServices(db: Db, env: NodeJS.ProcessEnv = {}): Promise<ChainServices> {
  return chainServices(db, env, [
    { dir: BUILTIN_SKILLS, source: 'builtin' },
    { dir: CHAIN_FIXTURES, source: 'shared' },
    { dir: REQ_FIXTURES, source: 'shared' },
  ]);
}

function run(
  services: ChainServices,
  steps: ChainRunRequest['doc']['steps'],
  extra: LooseChainExtra = {},
  defaults = callerDefaults(),
): Promise<ChainResult> {
  return runChainDocument(services, looseChainRequest({ doc: { steps }, input: {}, defaults, ...extra }));
}

/** Runs the chain through the product executor and records each step's wall. */
function recordingWalls(
  services: ChainServices,
  req: Omit<ChainRunRequest, 'execute'>,
): { walls: Record<string, number>; req: ChainRunRequest } {
  const walls: Record<string, number> = {};
  const inner = pipelineStepExecutor(services, req);
  return {
    walls,
    req: {
      ...req,
      execute: (call: StepCall) => {
        walls[call.alias] = call.wallSec;
        return inner(call);
      },
    },
  };
}

const noSteps = { lookup: {}, execute: async () => ({}) };

describe('chain requirements without a database', () => {
  it('R-CHAIN-01: the runner has no pause/branch/loop step types — such keys are not step types and are refused at save', async () => {
    // The save validator refuses every key outside the step schema, naming it.
    const registry = await discoverSkills([{ dir: CHAIN_FIXTURES, source: 'shared' }]);
    const doc = {
      name: 'no_workflow',
      description: '不支持暂停、分支、循环',
      steps: [
        { skill_name: 'echo', alias: 'a', if: '{x} > 1' },
        { skill_name: 'echo', alias: 'b', loop: 3, branches: [] },
        { type: 'pause', alias: 'p', skill_name: 'echo' },
        { skill_name: 'echo', alias: 'w', wait_for: 'reply' },
      ],
    };
    const problems = validateChain(doc, { registry });
    expect(problems.map((p) => [p.code, p.item])).toEqual([
      ['step.unknown_key', 'steps[0].if'],
      ['step.unknown_key', 'steps[1].loop'],
      ['step.unknown_key', 'steps[1].branches'],
      ['step.unknown_key', 'steps[2].type'],
      ['step.unknown_key', 'steps[3].wait_for'],
    ]);
    expect(problems[0]!.message).toMatch(/do not pause, wait, branch or loop/);

    // A hand-edited chain carrying such keys: the runner ignores them — a step is one call,
    // run exactly once, never conditionally skipped, repeated or paused.
    const calls: string[] = [];
    const r = await runChain(
      {
        steps: [
          { skill_name: 'x', alias: 'a', if: 'false', loop: 3, pause: true } as never,
          { skill_name: 'y', alias: 'b', wait_for: 'reply' } as never,
        ],
      },
      { lookup: {}, chainWallSec: 5, execute: async (c) => (calls.push(c.alias), { ok: true }) },
    );
    expect(calls).toEqual(['a', 'b']);
    expect(r.ok).toBe(true);
    // A "pause" step without a skill is simply a failed step (on_fail abort): the chain ends at once.
    const paused = await runChain(
      { steps: [{ type: 'pause', alias: 'p' } as never, { skill_name: 'y', alias: 'b' }] },
      { lookup: {}, chainWallSec: 5, execute: async (c) => (calls.push(c.alias), {}) },
    );
    expect(paused).toMatchObject({ ok: false, failed: ['p'], steps: {} });
    expect(calls).toEqual(['a', 'b']);
  });

  it('R-CHAIN-03: CHAIN_WALL_SEC from the environment, unset ⇒ max(30, TOOL_WALL_SEC − 30)', () => {
    expect(resolveWalls({ TOOL_WALL_SEC: '40' }).chainWallSec).toBe(30);
    expect(resolveWalls({ TOOL_WALL_SEC: '1800' }).chainWallSec).toBe(1770);
    expect(resolveWalls({ TOOL_WALL_SEC: '10' }).chainWallSec).toBe(30);
    expect(resolveWalls({ TOOL_WALL_SEC: '1800', CHAIN_WALL_SEC: '100' }).chainWallSec).toBe(100);
    expect(resolveWalls({ CHAIN_WALL_SEC: '45' })).toMatchObject({ chainWallSec: 45, chainStepWallSec: 45 });
  });

  it('R-CHAIN-04, D-06: unset variables give one default everywhere (TOOL_WALL_SEC 1800 ⇒ chain 1770, not 210); only the walls module reads them', () => {
    const settings = loadSettings({}, mkdtempSync(join(tmpdir(), 'sg-chain-req-cwd-')));
    expect(settings.walls).toEqual(resolveWalls({}));
    expect(settings.walls.toolWallSec).toBe(1800);
    expect(settings.walls.chainWallSec).toBe(1770);
    // No second reader with its own default (the original's runner read 240, the chat helpers 1800).
    const readers: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (
          e.name.endsWith('.ts') &&
          /env\??\.(TOOL_WALL_SEC|CHAIN_WALL_SEC|CHAIN_STEP_WALL_SEC)|['"](TOOL_WALL_SEC|CHAIN_WALL_SEC|CHAIN_STEP_WALL_SEC)['"]/.test(
            readFileSync(p, 'utf8'),
          )
        ) {
          readers.push(p.slice(SRC.length));
        }
      }
    };
    walk(SRC);
    expect(readers).toEqual(['config/walls.ts']);
  });

  it('R-CHAIN-08: a step is {skill_name, alias, params, on_fail, default_value} (+ natural_desc); types are checked', async () => {
    expect(STEP_KEYS).toEqual(['skill_name', 'alias', 'params', 'on_fail', 'default_value', 'natural_desc']);
    expect(Object.keys(CHAIN_DOCUMENT_SCHEMA.properties.steps.items.properties)).toEqual([...STEP_KEYS]);
    expect(CHAIN_DOCUMENT_SCHEMA.properties.steps.items.properties.on_fail.enum).toEqual(['abort', 'skip', 'continue']);
    const registry = await discoverSkills([{ dir: CHAIN_FIXTURES, source: 'shared' }]);
    const doc = (step: Record<string, unknown>) => ({ name: 'step_schema', description: '步骤', steps: [step] });
    const full = { skill_name: 'echo', alias: 'e', params: { a: 1 }, on_fail: 'continue', default_value: { v: 1 }, natural_desc: '回显' };
    expect(validateChain(doc(full), { registry })).toEqual([]);
    for (const dv of ['[1]', 'x', 3, null, [1], true]) expect(validateChain(doc({ ...full, default_value: dv }), { registry })).toEqual([]);
    const items = (step: Record<string, unknown>) => validateChain(doc(step), { registry }).map((p) => p.item);
    expect(items({ ...full, alias: 5 })).toEqual(['steps.0.alias']);
    expect(items({ ...full, params: [1] })).toEqual(['steps.0.params']);
    expect(items({ ...full, on_fail: 'retry' })).toEqual(['steps.0.on_fail']);
    expect(items({ ...full, skill_name: 7 })).toEqual(['steps.0.skill_name']);
  });

  it('R-CHAIN-14: default_value — a string is parsed as JSON first; a non-object/array is wrapped as {success:false, error, value}', async () => {
    expect(continueValue('[1]', 'e')).toEqual([1]);
    expect(continueValue('{"a": 1}', 'e')).toEqual({ a: 1 });
    expect(continueValue('x', 'boom')).toEqual({ success: false, error: 'boom', value: 'x' });
    expect(continueValue('42', 'boom')).toEqual({ success: false, error: 'boom', value: 42 });
    expect(continueValue('null', 'boom')).toEqual({ success: false, error: 'boom', value: null });
    expect(continueValue(undefined, 'boom')).toEqual({ success: false, error: 'boom', value: null });
    expect(continueValue(true, 'boom')).toEqual({ success: false, error: 'boom', value: true });
    expect(continueValue([2], 'e')).toEqual([2]);
    expect(continueValue({ b: 1 }, 'e')).toEqual({ b: 1 });
    // Through the runner: the failed step's entry is the value, and downstream reads it.
    const seen: unknown[] = [];
    const r = await runChain(
      {
        steps: [
          { skill_name: 'f', alias: 'a', on_fail: 'continue', default_value: '[1]' },
          { skill_name: 'f', alias: 'b', on_fail: 'continue', default_value: 'x' },
          { skill_name: 'g', alias: 'c', params: { a0: '$steps.a.0', b: '$steps.b' } },
        ],
      },
      {
        lookup: {},
        chainWallSec: 5,
        execute: async (c) => (c.skill === 'f' ? { success: false, error: 'boom' } : (seen.push(c.params), {})),
      },
    );
    expect(r.steps.a).toEqual([1]);
    expect(r.steps.b).toEqual({ success: false, error: 'boom', value: 'x' });
    expect(seen).toEqual([{ a0: 1, b: { success: false, error: 'boom', value: 'x' } }]);
  });

  it('R-CHAIN-34: aliases and field names may be Chinese but never hold ".", whitespace, braces, "$" or quotes', async () => {
    expect(REFERENCE_NAME_RE.test('查询')).toBe(true);
    expect(REFERENCE_NAME_RE.test('名称_2')).toBe(true);
    for (const bad of ['a.b', 'a b', 'a\tb', 'a{b', 'a}b', 'a$b', 'a"b', "a'b", '']) expect(REFERENCE_NAME_RE.test(bad), bad).toBe(false);
    // The parser: Chinese names resolve; a name never continues past one of those characters.
    const scope = { lookup: { 城市: '上海' }, steps: { 查询: { 名称: '甲' } } };
    expect(resolveParams({ a: '$steps.查询.名称', b: '{城市}' }, scope)).toEqual({ a: '甲', b: '上海' });
    for (const text of ['{a b}', '{a.b}', '{a"b}', "{a'b}", '{a$b}', '$steps.a b', '$steps.a"b'])
      expect(wholeReference(text), text).toBeNull();
    expect(referencesIn('$steps.查询.名称"x"').map((r) => [r.alias, r.path])).toEqual([['查询', ['名称']]]);
    expect(referencesIn('{a b}')).toEqual([]);
    // Save validation refuses such aliases and input names.
    const registry = await discoverSkills([{ dir: CHAIN_FIXTURES, source: 'shared' }]);
    const base = { name: 'names', description: '命名', steps: [] as unknown[] };
    for (const alias of ['a.b', 'a b', 'a{b}', 'a$b', 'a"b', "a'b"]) {
      expect(
        validateChain({ ...base, steps: [{ skill_name: 'echo', alias }] }, { registry }).map((p) => p.code),
        alias,
      ).toEqual(['alias.pattern']);
    }
    expect(
      validateChain(
        {
          ...base,
          steps: [
            { skill_name: 'lookup_out', alias: '查询' },
            { skill_name: 'echo', alias: '回显', params: { n: '$steps.查询.total' } },
          ],
        },
        { registry },
      ),
    ).toEqual([]);
    const inputs = validateChain(
      {
        ...base,
        input_schema: { type: 'object', properties: { 'my city': {}, 'a.b': {}, 城市: {} } },
        steps: [{ skill_name: 'echo', alias: 'e', params: { c: '{城市}' } }],
      },
      { registry },
    );
    expect(inputs.map((p) => [p.code, p.item])).toEqual([
      ['input.name', 'input_schema.properties.my city'],
      ['input.name', 'input_schema.properties.a.b'],
    ]);
  });

  it('R-CHAIN-39, R-ID-02: external inputs feed only the lookup surface; reserved keys are filtered out of them', () => {
    const runCtx = { org_id: 'demo', session_id: 's1', chat_mode: false, db: {}, call_skill: () => undefined, _meta: { x: 1 } };
    const lookup = lookupContext(runCtx, {
      org_id: 'evil',
      emp_no: 'E9',
      session_id: 'hijack',
      db: 'x',
      _meta: 'y',
      actor_emp_no: 'A',
      city: '上海',
    });
    expect(lookup).toEqual({ org_id: 'demo', session_id: 's1', chat_mode: false, city: '上海' });
    expect(runCtx).toEqual({ org_id: 'demo', session_id: 's1', chat_mode: false, db: {}, call_skill: runCtx.call_skill, _meta: { x: 1 } });
  });

  it('R-CHAIN-46, D-05: the per-step policy (CHAIN_POLICY / SCHEDULE_POLICY) carries chat_mode false; a confirmation request becomes an immediate step failure', () => {
    expect(CHAIN_POLICY.chatMode).toBe(false);
    expect(SCHEDULE_POLICY.chatMode).toBe(false);
    expect(Object.isFrozen(CHAIN_POLICY)).toBe(true);
    expect(policyForLine('chain')).toBe(CHAIN_POLICY);
    expect(policyForLine('schedule')).toBe(SCHEDULE_POLICY);
    const asked = confirmationAsFailure({ need_confirm: true, executed: false, confirm_token: 't' }, 'd', 'en');
    expect(asked).toMatchObject({ success: false, need_confirm: true, executed: false });
    expect(String(asked.error)).toContain('nobody can give inside a chain');
    expect(confirmationAsFailure({ success: true, deleted: 3 }, 'd')).toEqual({ success: true, deleted: 3 });
  });

  it('R-CHAIN-48: the return shape is exactly {steps, last, failed, ok, error, duration_ms}', async () => {
    let t = 1000;
    const ok = await runChain(
      {
        steps: [
          { skill_name: 'a', alias: 'x' },
          { skill_name: 'b', alias: 'y' },
        ],
      },
      { ...noSteps, chainWallSec: 5, now: () => (t += 7), execute: async (c) => ({ from: c.alias }) },
    );
    expect(Object.keys(ok).sort()).toEqual(['duration_ms', 'error', 'failed', 'last', 'ok', 'steps']);
    expect(ok).toEqual({
      steps: { x: { from: 'x' }, y: { from: 'y' } },
      last: { from: 'y' },
      failed: [],
      ok: true,
      error: '',
      duration_ms: 7,
    });
    const bad = await runChain(
      {
        steps: [
          { skill_name: 'a', alias: 'x' },
          { skill_name: 'f', alias: 'y', on_fail: 'skip' },
        ],
      },
      { ...noSteps, chainWallSec: 5, execute: async (c) => (c.skill === 'f' ? { ok: false, error: 'nope' } : { from: c.alias }) },
    );
    expect(Object.keys(bad).sort()).toEqual(['duration_ms', 'error', 'failed', 'last', 'ok', 'steps']);
    expect(bad).toMatchObject({ steps: { x: { from: 'x' } }, last: { from: 'x' }, failed: ['y'], ok: false });
    expect(bad.error).toContain('nope');
    expect(Number.isInteger(bad.duration_ms) && bad.duration_ms >= 0).toBe(true);
    const none = await runChain(
      { steps: [{ skill_name: 'f', alias: 'y' }] },
      { ...noSteps, chainWallSec: 5, execute: async () => ({ success: false, error: 'e' }) },
    );
    expect(none).toMatchObject({ steps: {}, last: null, failed: ['y'], ok: false });
  });
});

describeEachEngine('chain requirements through the pipeline', (db) => {
  let services: ChainServices | undefined;
  const svc = async () => (services ??= await reqServices(db()));

  it("R-CHAIN-06, R-CHAIN-05, D-06: TOOL_WALL_SEC or CHAIN_WALL_SEC lengthen chains; a skill's own wall takes precedence over the step wall, cut by the chain wall", async () => {
    // The wall each step's skill call actually ran under, from the pipeline's own log line.
    const ranUnder: Record<string, number> = {};
    const log = createLogger({
      level: 'info',
      destination: new Writable({
        write(chunk, _e, cb) {
          for (const line of String(chunk).split('\n').filter(Boolean)) {
            const o = JSON.parse(line) as { msg?: string; skill?: string; wall_sec?: number };
            if (o.msg === 'skill call started' && o.skill) ranUnder[o.skill] = o.wall_sec!;
          }
          cb();
        },
      }),
    });
    const wallsOf = async (env: NodeJS.ProcessEnv, extra: Partial<ChainRunRequest> = {}) => {
      const base = await svc();
      const s = withCall({ ...base, log, settings: { ...base.settings, walls: resolveWalls(env) } });
      const { walls, req } = recordingWalls(
        s,
        looseChainRequest({
          doc: {
            steps: [
              { skill_name: 'echo', alias: 'e' },
              { skill_name: 'walled', alias: 'w' },
            ],
          },
          input: {},
          defaults: callerDefaults(),
          ...extra,
        }),
      );
      const r = await runChainDocument(s, req);
      expect(r.ok).toBe(true);
      // The skill call runs under exactly the step wall the runner decided (not SKILL_WALL_DEFAULT 600).
      expect(ranUnder).toEqual({ echo: walls.e, walled: walls.w });
      return walls;
    };
    const dflt = await wallsOf({});
    expect(dflt.e).toBeGreaterThan(1700);
    expect(dflt.e).toBeLessThanOrEqual(1770);
    const tool = await wallsOf({ TOOL_WALL_SEC: '3600' });
    expect(tool.e).toBeGreaterThan(3500);
    expect(tool.e).toBeLessThanOrEqual(3570);
    const chain = await wallsOf({ CHAIN_WALL_SEC: '5000' });
    expect(chain.e).toBeGreaterThan(4900);
    expect(chain.e).toBeLessThanOrEqual(5000);
    // walled declares wall_sec 5: it keeps 5 where the step wall is 2; echo gets the step wall.
    const step = await wallsOf({ CHAIN_STEP_WALL_SEC: '2' });
    expect(step).toEqual({ e: 2, w: 5 });
    expect(declaredStepWallSec(resolveWalls({}), (await svc()).registry.get('echo'))).toBeUndefined();
    // …but never past what is left of the chain wall.
    const cut = await wallsOf({}, { chainWallSec: 3 });
    expect(cut.w).toBeLessThanOrEqual(3);
  });

  it('R-CHAIN-07: one runner and one pipeline for a chain run directly, from the chat execute path and as a scheduled task', async () => {
    const s = await svc();
    const key = probeKey();
    const doc = {
      name: 'three_ways',
      description: '三种入口',
      input_schema: { type: 'object', properties: { note: { type: 'string' } } },
      steps: [
        { skill_name: 'lookup_out', alias: 'q' },
        { skill_name: 'probe', alias: 'p', params: { run_id: key, tag: 'p', value: '$steps.q.total' } },
        { skill_name: 'echo', alias: 'e', params: { total: '$steps.q.total', first: '$steps.q.data.0.name', note: '{note}' } },
      ],
    };
    expect((await validateAndSave(db(), s.registry, doc)).ok).toBe(true);
    const chained = withCall(await withChainRegistry(s));

    const direct = await runChainDocument(chained, looseChainRequest({ doc, input: { note: '直接' }, defaults: callerDefaults() }));
    const chat = await runSkill(
      chained,
      looseRequest({
        skill: 'three_ways',
        input: { note: '对话' },
        defaults: callerDefaults(),
        given: { chat_mode: true, raw_input: '跑链' },
        line: 'chat',
      }),
    );
    const fired = await pipelineFire(
      chained,
      () => 'demo',
    )({
      name: 'three-ways',
      cron: '0 9 * * *',
      timezone: 'UTC',
      kind: 'chain',
      target: 'three_ways',
      missed: 'once',
      input: { note: '定时' },
      deliver_to: '',
      role_id: 'default',
      last_run_at: null,
      last_ok: null,
      last_result: null,
    });
    const results = [direct, chat, fired.result] as Array<Record<string, unknown>>;
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    const echoes = results.map((r) => (r.steps as Record<string, { input: Record<string, unknown>; ctx: Record<string, unknown> }>).e!);
    expect(echoes.map((e) => e.input)).toEqual([
      { total: 2, first: '甲', note: '直接' },
      { total: 2, first: '甲', note: '对话' },
      { total: 2, first: '甲', note: '定时' },
    ]);
    expect(echoes.map((e) => e.ctx.chat_mode)).toEqual([false, false, false]);
    expect(probeState(key).events).toEqual(['start:p', 'finish:p', 'start:p', 'finish:p', 'start:p', 'finish:p']);
    // A step gets the chat line's input checks: the same refusal as a chat call of that skill.
    const chatCall = await runSkill(s, looseRequest({ skill: 'need_name', input: {}, defaults: callerDefaults(), line: 'chat' }));
    const inChain = await run(s, [{ skill_name: 'need_name', alias: 'n', on_fail: 'continue', default_value: 'x' }]);
    expect(chatCall).toMatchObject({ success: false, need_param: 'name' });
    expect((inChain.steps.n as { error: string }).error).toBe(chatCall.error);
  });

  it("R-CHAIN-39, R-ID-02: chain inputs named org_id / emp_no / session_id / chat_mode / actor_* never reach the steps' context and do not feed {field}", async () => {
    const s = await svc();
    const defaults = callerDefaults();
    const r = await run(
      s,
      [
        { skill_name: 'ctx_fixed', alias: 'c' },
        {
          skill_name: 'echo',
          alias: 'e',
          params: { org: '{org_id}', emp: '{emp_no}', sess: '{session_id}', actor: '{actor_emp_no}', mode: '{chat_mode}', city: '{city}' },
        },
      ],
      {
        input: {
          org_id: 'evil',
          emp_no: 'E999',
          session_id: 'hijack',
          chat_mode: true,
          actor_emp_no: 'FORGED',
          role_id: 'admin',
          _meta: { a: 1 },
          city: '上海',
        },
        given: { actor_emp_no: 'E1' },
      },
      defaults,
    );
    expect(r.ok).toBe(true);
    const c = r.steps.c as Record<string, unknown> & { fixed: Record<string, unknown> };
    expect(c).toMatchObject({ org_id: 'demo', role_id: 'default', session_id: defaults.session_id, chat_mode: false, has_emp_no: false });
    expect(c.fixed.actor_emp_no).toBe('E1');
    const e = r.steps.e as { input: Record<string, unknown> };
    expect(e.input).toEqual({ org: 'demo', sess: defaults.session_id, actor: 'E1', mode: false, city: '上海' });
  });

  it('R-CHAIN-40, D-07: every step receives raw_input, channel, triggered_at, triggered_at_str, attachments and actor_*', async () => {
    const s = await svc();
    const at = 1767225600; // 2026-01-01 00:00 UTC
    const given = {
      raw_input: '跑一下日报链',
      channel: 'telegram',
      triggered_at: at,
      attachments: [{ type: 'file', filename: 'brief.pdf', local_path: '/tmp/brief.pdf' }],
      actor_name: '张三',
      actor_emp_no: 'E1',
      actor_department: '销售一部',
      actor_department_path: '/总部/销售中心/销售一部/',
      actor_position: '经理',
      actor_title: '高级经理',
      actor_phone: '13800000000',
      actor_email: 'z@example.com',
      actor_tags: ['vip'],
      actor_key: 'telegram:42',
      actor_id: '42',
    };
    const r = await run(
      s,
      [
        { skill_name: 'ctx_fixed', alias: 'a' },
        { skill_name: 'ctx_fixed', alias: 'b', params: { after: '$steps.a.org_id' } },
      ],
      { given },
    );
    expect(r.ok).toBe(true);
    for (const alias of ['a', 'b']) {
      const f = (r.steps[alias] as { fixed: Record<string, unknown> }).fixed;
      const { attachments, triggered_at, ...rest } = given;
      expect(f, alias).toMatchObject({ ...rest, triggered_at, triggered_at_str: formatTriggeredAt(at), actor_is_admin: false });
      expect(f.triggered_at_str).toBe('2026-01-01 00:00');
      expect((f.attachments as Array<{ filename: string }>).map((x) => x.filename)).toContain(attachments[0]!.filename);
    }
  });

  it('R-CHAIN-42, A-43: x-output-schema (schema.json) is the output contract — a reference to an undeclared top-level field fails to save, listing the declared ones', async () => {
    const s = await svc();
    expect(s.registry.get('lookup_out')?.outputSchema?.properties).toEqual({ data: { type: 'array' }, total: { type: 'integer' } });
    const doc = (field: string) => ({
      name: 'out_schema',
      description: '输出契约',
      steps: [
        { skill_name: 'lookup_out', alias: 'q' },
        { skill_name: 'echo', alias: 'e', params: { v: `$steps.q.${field}` } },
      ],
    });
    const refused = await validateAndSave(db(), s.registry, doc('rows'));
    expect(refused.ok).toBe(false);
    const problems = (refused as { problems: { code: string; item: string; message: string }[] }).problems;
    expect(problems.map((p) => [p.code, p.item])).toEqual([['steps.unknown_field', '$steps.q.rows']]);
    expect(problems[0]!.message).toContain('data, total');
    expect((await validateAndSave(db(), s.registry, doc('total'))).ok).toBe(true);
    // Only top-level names are checked; a skill without x-output-schema accepts any field.
    expect((await validateAndSave(db(), s.registry, doc('data.0.anything'))).ok).toBe(true);
    expect(
      (
        await validateAndSave(db(), s.registry, {
          ...doc('x'),
          steps: [
            { skill_name: 'echo', alias: 'q' },
            { skill_name: 'echo', alias: 'e', params: { v: '$steps.q.whatever' } },
          ],
        })
      ).ok,
    ).toBe(true);
  });

  it('R-CHAIN-43: in a chain request is null and no sub-agent starts; a request-dependent skill fails cleanly (also when the chain is started from chat)', async () => {
    const s = await svc();
    const request = { headers: { 'user-agent': 'UA/1' } };
    const direct = await runSkill(
      s,
      looseRequest({ skill: 'needs_request', input: {}, defaults: callerDefaults(), line: 'chat', request }),
    );
    expect(direct).toMatchObject({ user_agent: 'UA/1' });
    expect(
      (
        await validateAndSave(db(), s.registry, {
          name: 'req_chain',
          description: '依赖 request',
          steps: [
            { skill_name: 'ctx_fixed', alias: 'c' },
            { skill_name: 'needs_request', alias: 'r', params: { after: '$steps.c.org_id' } },
          ],
        })
      ).ok,
    ).toBe(true);
    const chained = withCall(await withChainRegistry(s));
    const env = await runSkill(chained, looseRequest({ skill: 'req_chain', input: {}, defaults: callerDefaults(), line: 'chat', request }));
    expect(env).toMatchObject({ ok: false, success: false, failed: ['r'] });
    expect((env.steps as { c: { request: unknown } }).c.request).toBeNull();
    expect(String(env.error)).toMatch(/needs_request/);
    expect(String(env.error)).toMatch(/headers/);
  });

  it('R-CHAIN-44: all steps share one session_id and workspace — step 2 finds the file step 1 wrote (as a file and as an attachment)', async () => {
    const s = await svc();
    const defaults = callerDefaults();
    const r = await run(
      s,
      [
        { skill_name: 'write_note', alias: 'w', params: { filename: 'handoff.txt', text: '第一步的产物' } },
        { skill_name: 'read_note', alias: 'r', params: { file: '$steps.w.filename' } },
        { skill_name: 'ctx_fixed', alias: 'c', params: { after: '$steps.r.content' } },
      ],
      {},
      defaults,
    );
    expect(r.ok).toBe(true);
    const w = r.steps.w as { workspace_dir: string };
    expect(existsSync(join(w.workspace_dir, 'handoff.txt'))).toBe(true);
    expect(r.steps.r).toMatchObject({ content: '第一步的产物' });
    expect((r.steps.r as { attachments: string[] }).attachments).toContain('handoff.txt');
    expect((r.steps.c as { session_id: string }).session_id).toBe(defaults.session_id);
  });

  it("R-CHAIN-46, D-05: chat_mode is set by the line's policy — false in chains even for a chat caller; an input cannot change it; a policy with chat_mode true is what changes it", async () => {
    const s = await svc();
    const steps = [{ skill_name: 'ctx_fixed', alias: 'c', params: { chat_mode: true } }];
    const fromChat = await run(s, steps, { given: { chat_mode: true }, input: { chat_mode: true } });
    expect((fromChat.steps.c as { chat_mode: unknown }).chat_mode).toBe(false);
    const scheduled = await run(s, steps, { line: 'schedule', given: { chat_mode: true } });
    expect((scheduled.steps.c as { chat_mode: unknown }).chat_mode).toBe(false);
    const kept = await run(s, steps, { policy: { chatMode: true } });
    expect((kept.steps.c as { chat_mode: unknown }).chat_mode).toBe(true);
  });

  it('R-CHAIN-47, A-25: no built-in empty guard — an empty step 1 leaves the reference missing, the parameter is omitted, step 2 answers need_param and on_fail abort stops the chain', async () => {
    const s = await svc();
    const key = probeKey();
    const steps = (rows: unknown[]) => [
      { skill_name: 'lookup_out', alias: 'q', params: { rows } },
      { skill_name: 'need_name', alias: 'n', params: { name: '$steps.q.data.0.name' } },
      { skill_name: 'probe', alias: 'later', params: { run_id: key, tag: 'later', value: '$steps.n.greeting' } },
    ];
    const empty = await run(s, steps([]));
    expect(empty.ok).toBe(false);
    expect(empty.failed).toEqual(['n']);
    expect(Object.keys(empty.steps)).toEqual(['q']);
    expect(empty.steps.q).toMatchObject({ data: [], total: 0 });
    expect(empty.error).toContain('name');
    expect(probeState(key).events).toEqual([]);
    const full = await run(s, steps([{ name: '甲' }]));
    expect(full.ok).toBe(true);
    expect(full.steps.n).toMatchObject({ greeting: '你好，甲' });
    expect(probeState(key).events).toEqual(['start:later', 'finish:later']);
  });

  it('R-CHAIN-49, R-DT-95, D-05: a datatable delete of ≤ 10 rows completes in a chain without a token; > 10 rows executes too (chat_mode false) and is backed up', async () => {
    const s = await svc();
    const defaults = callerDefaults();
    const given = { team_role: 'owner', actor_emp_no: 'E1' };
    const dt = (input: Record<string, unknown>) => runSkill(s, looseRequest({ skill: 'datatable', input, defaults, given, line: 'cli' }));
    const created = await dt({
      action: 'create_table',
      payload: {
        table_name: '链内删除',
        fields: [
          { title: '组', uidt: '文本' },
          { title: '序号', uidt: '整数' },
        ],
      },
    });
    expect(created, JSON.stringify(created)).toMatchObject({ success: true });
    const tableId = created.id as string;
    const records = [
      ...Array.from({ length: 10 }, (_, i) => ({ 组: 'small', 序号: i })),
      ...Array.from({ length: 15 }, (_, i) => ({ 组: 'big', 序号: i })),
      ...Array.from({ length: 11 }, (_, i) => ({ 组: 'kept', 序号: i })),
    ];
    expect(await dt({ action: 'insert_batch', payload: { table_id: tableId, records } })).toMatchObject({ success: true, inserted: 36 });
    const deleteGroup = (alias: string, group: string) => ({
      skill_name: 'datatable',
      alias,
      params: { action: 'delete_by', payload: { table_id: tableId, filters: [{ field: '组', op: 'eq', value: group }] } },
    });

    const r = await run(s, [deleteGroup('small', 'small'), deleteGroup('big', 'big')], { given }, defaults);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(r.steps.small).toMatchObject({ success: true, deleted: 10 });
    expect(r.steps.big).toMatchObject({ success: true, deleted: 15 });
    for (const alias of ['small', 'big']) expect(JSON.stringify(r.steps[alias])).not.toContain('confirm_token');
    const count = async (group: string) =>
      (
        (await dt({ action: 'query', payload: { table_id: tableId, filters: [{ field: '组', op: 'eq', value: group }], limit: 1 } }))
          .pageInfo as { totalRows: number }
      ).totalRows;
    expect(await count('small')).toBe(0);
    expect(await count('big')).toBe(0);
    // Backups stay mandatory in chains: the > 10 delete left its file in the shared workspace.
    const ws = (await run(s, [{ skill_name: 'write_note', alias: 'w', params: { filename: 'probe.txt' } }], {}, defaults)).steps.w as {
      workspace_dir: string;
    };
    const big = r.steps.big as { backup_file: string };
    expect(big.backup_file).toMatch(/^del_backup_链内删除_\d{8}_\d{6}/);
    expect(JSON.parse(readFileSync(join(ws.workspace_dir, big.backup_file), 'utf8'))).toHaveLength(15);

    // A deployment keeping chat_mode true: the confirmation is an immediate step failure, never a hang.
    const kept = await run(s, [deleteGroup('d', 'kept')], { given, policy: { chatMode: true } }, defaults);
    expect(kept).toMatchObject({ ok: false, failed: ['d'] });
    expect(kept.error).toContain('confirm');
    expect(await count('kept')).toBe(11);
  });
});
