/**
 * Requirements of async skills, call_skill and messaging traced to
 * tests: R-ASYNC-03, R-ASYNC-06..09, R-CALL-15..17, R-MSG-05 (with A-48). The async path runs
 * through the real turn, pg-boss and the real outbox (test/async/helpers.ts); wall clocks are
 * fractions of a second where a wall must pass, and no assertion is about durations — a
 * control skill timing out is the proof that a wall has passed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ASYNC_QUEUE, jobDataOf } from '../../src/async/job.ts';
import { createAsyncRunner } from '../../src/async/runner.ts';
import type { OutboundMessage, OutboundTarget, SendResult } from '../../src/channel/types.ts';
import { BUILTIN_SKILLS_DIR } from '../../src/config/settings.ts';
import { resolveWalls, type WallSettings } from '../../src/config/walls.ts';
import type { SkillServices } from '../../src/executor/skill-call.ts';
import { runSkill } from '../../src/wiring/skill-call.ts';
import { createLogger } from '../../src/log/logger.ts';
import { createNotifyAdapter, NOTIFY_ACCOUNT, NOTIFY_CHANNEL, runNotify } from '../../src/orchestration/notify.ts';
import { runSendMessage } from '../../src/orchestration/send-message.ts';
import { callSkillTargets } from '../../src/registry/async-callees.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import { setSkillConfig } from '../../src/runtime/skill-config.ts';
import { FakeAppriseApi } from '../fixtures/apprise/fake-apprise-api.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { messagingEnv, type MessagingEnv } from '../orchestration/helpers.ts';
import { RecordingAdapter } from '../turn/helpers.ts';
import { makeAsyncHarness, type AsyncHarness } from './helpers.ts';
import { gate, REQ_FIXTURES, seen, started } from './req-state.ts';
import { looseRequest } from '../helpers/request.ts';
import type { LineDefaults } from '../../src/executor/request.ts';

const POLL = { timeout: 20_000, interval: 50 };
const textOf = (m: OutboundMessage): string => [m.text ?? '', m.display_md ?? ''].join('\n');

/** Walls in seconds with the given overrides (fractions keep a passing wall short). */
function wallsWith(over: Partial<WallSettings>): WallSettings {
  return { ...resolveWalls({}), ...over };
}

function defaultsFor(channel: string, session: string): LineDefaults {
  return {
    role_id: 'default',
    org_id: 'demo',
    session_id: session,
    channel,
    chat_mode: true,
    allow_sql: true,
    team_role: 'member',
    is_admin: false,
    user_id: 'u-1',
  };
}

describeEachEngine('async skills, call_skill and messaging: traced requirements', (db, engine) => {
  let h: AsyncHarness;
  let logs = '';
  const jobsOf = async (tag: string): Promise<number> =>
    (await db().query(`SELECT 1 FROM pgboss.job WHERE name = $1 AND data->'input'->>'tag' = $2`, [ASYNC_QUEUE, tag])).rows.length;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, cb) {
        logs += chunk.toString();
        cb();
      },
    });
    h = await makeAsyncHarness(db(), { fixtures: [REQ_FIXTURES], log: createLogger({ destination: sink, level: 'info' }) });
  });
  afterAll(async () => {
    await h?.stop();
  });

  /** Services of the harness with other wall clocks. */
  const withWalls = (walls: WallSettings): SkillServices => ({ ...h.services, settings: { ...h.services.settings, walls } });

  /** A runner over `services` that pushes to the harness's Telegram adapter (not started: runJob only). */
  const runnerOver = (services: SkillServices, hardcapFactor: number) =>
    createAsyncRunner({
      db: db(),
      services,
      call: (req) => runSkill(services, req),
      outbox: h.outbox,
      log: services.log,
      adapterFor: (c) => (c === 'telegram' ? h.telegram : undefined),
      hardcapFactor,
      ackWaitMs: 0,
      work: false,
    });

  /** The stored job of a Telegram call of `skill` (what maybeDefer would store). */
  const jobFor = (skill: string, tag: string, chatId: string) =>
    jobDataOf(looseRequest({ skill, input: { tag }, given: {}, defaults: defaultsFor('telegram', `s-${tag}`), line: 'chat' }), skill, {
      target: { channel: 'telegram', account: 'default', chat_id: chatId },
      event_id: `ev-${tag}`,
    });

  it('R-ASYNC-03: the artifacts of a finished background run are pushed to the originating chat, only after the run ends', async () => {
    const tag = `a3-${engine}-${Date.now()}`;
    const open = gate(tag);
    const ack = await h.turn('telegram', `/long_async tag=${tag}`);
    expect(ack.map(textOf).join('\n')).toContain('已在后台开始执行');
    await expect.poll(() => started(tag), POLL).toBe(true);
    const ackSend = h.telegram.sent.find((s) => textOf(s.message).includes('已在后台开始执行') && textOf(s.message).includes('long_async'));
    // Nothing of the result has left while the run is held.
    expect(h.telegram.sent.some((s) => textOf(s.message).includes(`长任务 ${tag} 完成`) || s.message.media?.length)).toBe(false);

    open();
    await expect
      .poll(() => h.telegram.sent.find((s) => s.message.media?.some((m) => m.filename === `long-${tag}.txt`)), POLL)
      .toBeDefined();
    const pushed = h.telegram.sent.filter(
      (s) => textOf(s.message).includes(`长任务 ${tag} 完成`) || s.message.media?.some((m) => m.filename === `long-${tag}.txt`),
    );
    expect(pushed.length).toBeGreaterThan(0);
    for (const p of pushed) {
      // the chat the call came from: same channel, account and chat
      expect(p.target).toMatchObject({
        channel: 'telegram',
        account: 'default',
        chat_id: ackSend?.target.chat_id ?? h.telegram.sent[0]!.target.chat_id,
      });
    }
    expect(pushed.map((p) => textOf(p.message)).join('\n')).toContain(`长任务 ${tag} 完成`);
  });

  it('R-ASYNC-06: the stored configuration reaches the background run in all four places of §5.1', async () => {
    await setSkillConfig(db(), h.services.secretKey, {
      roleId: 'default',
      skill: 'bg_config',
      key: 'region',
      value: '华南',
      via: 'operator',
    });
    const tag = `a6-${engine}-${Date.now()}`;
    const ack = await h.turn('telegram', `/bg_config tag=${tag}`);
    expect(ack.map(textOf).join('\n')).toContain('已在后台开始执行');
    await expect.poll(() => seen(tag), POLL).toBeDefined();
    expect(seen(tag)).toMatchObject({ nested: '华南', flat: '华南', args: '华南', top: '华南', lookup: '华南' });
    expect(await jobsOf(tag)).toBe(1); // it really ran as a background job
  });

  it('R-ASYNC-07: the background run has its own db and db_factory; each use is an independent session and a failed one rolls back alone', async () => {
    const tag = `a7-${engine}-${Date.now()}`;
    await h.turn('telegram', `/bg_config tag=${tag}`);
    await expect.poll(() => seen(tag), POLL).toBeDefined();
    const s = seen(tag)!;
    expect(s).toMatchObject({ has_db: true, has_db_factory: true });
    expect(s.tx1).not.toBe(s.tx2); // two uses, two transactions
    expect(String(s.failed)).toMatch(/division by zero/);
    expect(s.legacy).toBe(1); // the legacy db sees the committed row, not the rolled-back one
    const { rows } = await db().query<{ tag: string }>('SELECT tag FROM public.r_async_07 WHERE tag LIKE $1 ORDER BY tag', [`${tag}%`]);
    expect(rows.map((r) => r.tag)).toEqual([tag]);
  });

  it('R-ASYNC-08, A-48: a background run is not cut at the single-tool wall; it is bounded by SKILL_WALL_HARDCAP × factor', async () => {
    // Skill wall 0.5 s; background cap 30 s × 1000.
    const services = withWalls(wallsWith({ skillWallDefaultSec: 0.5, skillWallHardcapSec: 30 }));
    const runner = runnerOver(services, 1000);
    const tag = `a8-${engine}-${Date.now()}`;
    const open = gate(tag);
    const job = runner.runJob(`job-${tag}`, jobFor('long_async', tag, `chat-${tag}`));
    await expect.poll(() => started(tag), POLL).toBe(true);

    // Control: the same job without `async` started later is cut at its 0.5 s wall.
    const ctl = `a8c-${engine}-${Date.now()}`;
    gate(ctl);
    const control = await runSkill(
      services,
      looseRequest({
        skill: 'long_sync',
        input: { tag: ctl },
        defaults: defaultsFor('telegram', `s-${ctl}`),
        line: 'chat',
      }),
    );
    expect(control).toMatchObject({ success: false, timeout: true });

    // The background run has been going for longer than that wall and is still alive.
    open();
    const env = await job;
    expect(env).toMatchObject({ success: true, user_message: `长任务 ${tag} 完成` });
    await expect
      .poll(() => h.telegram.sent.find((s) => s.target.chat_id === `chat-${tag}` && textOf(s.message).includes(`长任务 ${tag} 完成`)), POLL)
      .toBeDefined();

    // the cap exists: SKILL_WALL_HARDCAP 0.5 s × factor 1 stops a held run and pushes the failure.
    const capped = runnerOver(withWalls(wallsWith({ skillWallDefaultSec: 0.5, skillWallHardcapSec: 0.5 })), 1);
    const held = `a8h-${engine}-${Date.now()}`;
    gate(held);
    const cut = await capped.runJob(`job-${held}`, jobFor('long_async', held, `chat-${held}`));
    expect(cut).toMatchObject({ success: false, error_type: 'transient', timeout: true, wall_sec: 0.5 });
    await expect.poll(() => h.telegram.sent.find((s) => s.target.chat_id === `chat-${held}`), POLL).toBeDefined();
  });

  it('R-ASYNC-08: on web an async skill runs synchronously and is exempt from the single-tool wall too', async () => {
    const services = withWalls(wallsWith({ skillWallDefaultSec: 0.5, skillWallHardcapSec: 30 }));
    const tag = `a8w-${engine}-${Date.now()}`;
    const open = gate(tag);
    const run = runSkill(
      services,
      looseRequest({ skill: 'long_async', input: { tag }, defaults: defaultsFor('web', `s-${tag}`), line: 'chat' }),
    );
    await expect.poll(() => started(tag), POLL).toBe(true);
    const ctl = `a8wc-${engine}-${Date.now()}`;
    gate(ctl);
    expect(
      await runSkill(
        services,
        looseRequest({ skill: 'long_sync', input: { tag: ctl }, defaults: defaultsFor('web', `s-${ctl}`), line: 'chat' }),
      ),
    ).toMatchObject({
      success: false,
      timeout: true,
    });
    open();
    expect(await run).toMatchObject({ success: true, user_message: `长任务 ${tag} 完成` });
  });

  it('R-ASYNC-09, R-CALL-16: an async skill reached through call_skill runs synchronously inside the turn (no job), with a warning', async () => {
    const tag = `a9-${engine}-${Date.now()}`;
    gate(tag)(); // open from the start
    const reply = await h.turn('telegram', `/async_caller tag=${tag}`);
    const text = reply.map(textOf).join('\n');
    expect(text).toContain(`调用结果：长任务 ${tag} 完成`); // the callee's own result, waited for
    expect(text).not.toContain('已在后台开始执行');
    expect(await jobsOf(tag)).toBe(0);
    const warned = logs
      .split('\n')
      .filter((l) => l.includes('call_skill of an async: true skill') && l.includes('"caller":"async_caller"'));
    expect(warned.length).toBeGreaterThan(0);
  });

  it('R-CALL-16: the registry warns about a skill that names an async skill as a call_skill target; built-ins do not', async () => {
    const issues = h.services.registry.issues().filter((i) => i.code === 'call_skill.async_callee');
    expect(issues.map((i) => [i.skill, i.severity])).toEqual([['async_caller', 'warning']]);
    expect(issues[0]!.message).toContain('"long_async"');
    const builtins = await discoverSkills([{ dir: BUILTIN_SKILLS_DIR, source: 'builtin' }]);
    expect(builtins.issues().filter((i) => i.code === 'call_skill.async_callee')).toEqual([]);
    // The forms a handler may use (JS/TS and Python).
    expect(
      callSkillTargets(
        [
          "await runtime_context.call_skill('a', {})",
          'const call = ctx.call_skill; await call("b", { x: 1 })',
          'await ctx["call_skill"]("c", {"k": 1})',
          'await callSkill(`d`)',
          'recall("nope"); obj.call("nope2"); call(name)',
        ].join('\n'),
      ),
    ).toEqual(['a', 'b', 'c', 'd']);
  });

  it(`R-CALL-15: a caller's uncommitted write is not visible to the callee (its own session); after commit it is`, async () => {
    const marker = `c15-${engine}-${Date.now()}`;
    const env = await runSkill(
      h.services,
      looseRequest({
        skill: 'tx_caller',
        input: { marker },
        defaults: defaultsFor('cli', `s-${marker}`),
        line: 'cli',
      }),
    );
    expect(env.success, JSON.stringify(env)).toBe(true);
    const before = env.before as Record<string, unknown>;
    if (engine === 'server') {
      // Another session: the uncommitted row does not exist for the callee (the documented trap).
      expect(before).toMatchObject({ success: true, count: 0 });
      expect(logs).toContain('call_skill inside an open db_factory transaction');
    } else {
      // One session (PGlite): the callee could never get it — refused at once instead of hanging.
      expect(before).toMatchObject({ ok: false, skill: 'count_probe' });
      expect(String(before.error)).toMatch(/commit your writes before calling/);
    }
    expect(env.after).toMatchObject({ success: true, count: 1 });
  });

  it('R-CALL-17: built-in skills hard-code call_skill targets and parameters (no model-filled input is passed on whole)', () => {
    const calls = builtinCallSkillCalls();
    expect(calls.length).toBeGreaterThanOrEqual(5);
    const bad = calls.filter((c) => c.problem);
    expect(bad).toEqual([]);
    // The lint itself: it flags a computed target and model input passed on whole.
    const probe = lintSource(
      'x.ts',
      'export async function execute(input_data, ctx) { await ctx.call_skill(input_data.target, input_data); }',
    );
    expect(probe.map((c) => c.problem)).toEqual([expect.stringMatching(/target is not a string literal/)]);
    const probe2 = lintSource(
      'y.ts',
      "export async function execute(input_data, ctx) { const call = ctx.call_skill; await call('notify', input_data); }",
    );
    expect(probe2.map((c) => c.problem)).toEqual([expect.stringMatching(/input is the handler's own input/)]);
  });
});

describeEachEngine('R-MSG-05: notify and send_message are fire-and-forget', (db) => {
  let env: MessagingEnv;
  const apprise = new FakeAppriseApi();
  /** Telegram-like: sends to chat "held" wait until the test releases them. */
  class HeldAdapter extends RecordingAdapter {
    release?: () => void;
    entered = false;
    override async send(target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
      if (target.chat_id === 'held') {
        this.entered = true;
        await new Promise<void>((r) => (this.release = r));
      }
      return super.send(target, message);
    }
  }
  const tg = new HeldAdapter('telegram');
  const pending = async (): Promise<number> =>
    Number((await db().query<{ n: string }>('SELECT count(*)::text AS n FROM skillgate.pending_replies')).rows[0]!.n);

  beforeAll(async () => {
    const { migrate } = await import('../../src/store/migrate.ts');
    await migrate(db());
    await apprise.listen();
    env = messagingEnv(db(), { waitMs: 10_000 });
    env.adapters.set('telegram:default', tg);
    env.adapters.set(`${NOTIFY_CHANNEL}:${NOTIFY_ACCOUNT}`, createNotifyAdapter({ baseUrl: apprise.url }));
  });
  afterAll(async () => {
    tg.release?.();
    await env.stop();
    await apprise.close();
  });

  it('R-MSG-05: send_message returns once the platform accepted the message — not before, and without waiting for any reply', async () => {
    const before = await pending();
    let done = false;
    const call = runSendMessage({ to: 'telegram:held', message: '您报修的 3号机 已修复。' }, env.ctx()).then((r) => {
      done = true;
      return r;
    });
    await expect.poll(() => tg.entered, POLL).toBe(true);
    expect(done).toBe(false); // the platform has not accepted it yet
    tg.release!();
    const r = await call;
    expect(r).toMatchObject({ ok: true, sent: 1, queued: 0, failed: 0 });
    expect(tg.sent.map((s) => s.target.chat_id)).toContain('held'); // delivered before the call returned
    expect(await pending()).toBe(before); // nothing waits for the recipient's answer
  });

  it('R-MSG-05: notify returns with sent once Apprise accepted it and leaves nothing waiting for a reply', async () => {
    const before = await pending();
    const r = await runNotify({ message: '3号机维修完成', target: 'json://ops.example/hook' }, env.ctx());
    expect(r).toMatchObject({ sent: true, ok: true });
    expect(apprise.calls).toHaveLength(1);
    expect(await pending()).toBe(before);
  });
});

/** One call_skill call found in a built-in skill, with what is wrong with it ("" when fine). */
interface FoundCall {
  file: string;
  line: number;
  text: string;
  problem: string;
}

/** Names under which handlers hold call_skill. */
const CALL_NAMES = new Set(['call_skill', 'callSkill', 'call']);

/**
 * R-CALL-17 lint of one source file: every call of `call_skill` (also through a `call` /
 * `callSkill` alias) names its target with a string literal and does not hand the handler's
 * own input (`input_data` / `input`, the model-filled arguments) on whole.
 */
function lintSource(file: string, text: string): FoundCall[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const out: FoundCall[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      const viaProperty = ts.isPropertyAccessExpression(callee);
      if (name === 'call_skill' || (!viaProperty && CALL_NAMES.has(name))) {
        const [target, input] = node.arguments;
        let problem = '';
        if (!target || !(ts.isStringLiteral(target) || ts.isNoSubstitutionTemplateLiteral(target)))
          problem = 'target is not a string literal';
        else if (input && ts.isIdentifier(input) && (input.text === 'input_data' || input.text === 'input'))
          problem = "input is the handler's own input passed on whole";
        const { line } = sf.getLineAndCharacterOfPosition(node.getStart());
        out.push({ file, line: line + 1, text: node.getText().slice(0, 80), problem });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Every call_skill call in the built-in skills' TypeScript / JavaScript sources. */
function builtinCallSkillCalls(): FoundCall[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|mjs|js)$/.test(name)) files.push(p);
    }
  };
  walk(BUILTIN_SKILLS_DIR);
  return files.flatMap((f) => lintSource(f, readFileSync(f, 'utf8')));
}
