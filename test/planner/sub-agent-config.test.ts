/**
 * skill_md sub-agents (R-FORM-03, R-LOAD-11/12) and the config-saving tool (R-CFG-01/06/08)
 * under the real turn, against the scripted model server.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { deleteSkillConfig, getSkillConfig } from '../../src/runtime/skill-config.ts';
import { READ_SKILL_FILE, SAVE_SKILL_CONFIG } from '../../src/turn/planners/model/local-tools.ts';
import { callTools, FakeLlm, lastToolResult, say, type ReceivedRequest } from './fake-llm.ts';
import { plannerHarness, textOf, type PlannerHarness } from './harness.ts';

const llm = new FakeLlm();
beforeAll(async () => {
  await llm.start();
});
afterAll(async () => {
  await llm.close();
});

const names = (req: ReceivedRequest): string[] => (req.tools ?? []).map((t) => t.function.name);

describeEachEngine('skill_md sub-agent and config tool', (db) => {
  // one harness (skills discovered once) for the tests on a rich channel of this engine
  let shared: Promise<PlannerHarness> | undefined;
  const rich = (): Promise<PlannerHarness> => (shared ??= plannerHarness(db(), llm));

  it('R-FORM-03, R-LOAD-12: a skill_md skill runs as an isolated sub-agent that reads its reference file; its answer is the skill result', async () => {
    const h = await rich();
    llm.script(
      {
        check: (req) => {
          expect(names(req)).toContain('pl_guide');
          expect(names(req)).not.toContain(READ_SKILL_FILE);
        },
        reply: callTools(['pl_guide', { question: 'USD to CNY?' }]),
      },
      {
        // a fresh conversation: SKILL.md as instructions, the input, no main history
        check: (req) => {
          expect(req.messages).toHaveLength(2);
          expect(req.messages[0]!.content).toContain('Before quoting any rate, read references/rates.md');
          expect(req.messages[1]!.content).toContain('{"question":"USD to CNY?"}');
          expect(names(req)).toContain(READ_SKILL_FILE);
          expect(names(req)).not.toContain('pl_guide');
          expect(names(req)).toContain('pl_lookup');
        },
        reply: callTools([READ_SKILL_FILE, { path: 'references/rates.md' }]),
      },
      {
        check: (req) => expect(String(lastToolResult(req).content)).toContain('USD to CNY: 7.1 (house rate R-77)'),
        reply: say('按内部汇率 R-77，1 美元 = 7.1 元。'),
      },
      {
        check: (req) => {
          const r = lastToolResult(req);
          expect(r).toMatchObject({ success: true, result: '按内部汇率 R-77，1 美元 = 7.1 元。' });
          expect(req.messages.filter((m) => m.role === 'system')).toHaveLength(1);
        },
        reply: say('1 美元约合 7.1 元人民币（内部汇率 R-77）。'),
      },
    );
    const out = await h.turn({ raw_input: '美元兑人民币多少？' });
    llm.assertDone();
    expect(textOf(out)).toContain('7.1 元人民币');
    expect(h.results.at(-1)!.invocations.map((i) => i.tool)).toEqual(['pl_guide']);
    expect(h.results.at(-1)!.invocations[0]!.envelope.result).toContain('R-77');
  });

  it('read_skill_file refuses a path outside the skill folder', async () => {
    const h = await rich();
    llm.script(
      { reply: callTools(['pl_guide', {}]) },
      { reply: callTools([READ_SKILL_FILE, { path: '../pl_secret/handler.ts' }]) },
      {
        check: (req) => {
          const r = lastToolResult(req);
          expect(r.success).toBe(false);
          expect(String(r.error)).toContain('outside the skill folder');
        },
        reply: say('无法读取。'),
      },
      { reply: say('好的') },
    );
    await h.turn({ raw_input: '汇率？' });
    llm.assertDone();
  });

  it('R-CFG-08: needs_config → the user types the credential → saved encrypted for the role → the skill gets it; no schema ever shows it', async () => {
    // each harness has its own secret key: start from no stored parameter
    await deleteSkillConfig(db(), 'default', 'pl_secret');
    const h = await rich();
    const words = '我的 api_token 是 tok-abc123，帮我查 pumps';
    llm.script(
      { reply: callTools(['pl_secret', { query: 'pumps' }]) },
      {
        check: (req) => expect(lastToolResult(req)).toMatchObject({ success: false, needs_config: ['api_token'] }),
        reply: callTools([SAVE_SKILL_CONFIG, { skill: 'pl_secret', parameter: 'api_token', value: 'tok-abc123' }]),
      },
      {
        check: (req) => {
          const r = lastToolResult(req);
          expect(r).toMatchObject({ success: true, saved: { skill: 'pl_secret', parameter: 'api_token', encrypted: true } });
          expect(JSON.stringify(r)).not.toContain('tok-abc123');
        },
        // a model-filled secret argument is dropped; the stored value is injected (R-CFG-06)
        reply: callTools(['pl_secret', { query: 'pumps', api_token: 'model-made-up' }]),
      },
      {
        check: (req) => expect(lastToolResult(req)).toMatchObject({ success: true, token_length: 'tok-abc123'.length }),
        reply: say('查到了。'),
      },
    );
    const out = await h.turn({ raw_input: words });
    llm.assertDone();
    expect(textOf(out)).toContain('查到了。');
    for (const req of llm.received) expect(JSON.stringify(req.tools)).not.toContain('api_token');
    const stored = await getSkillConfig(db(), h.services.secretKey, 'default', 'pl_secret');
    expect(stored.api_token).toBe('tok-abc123');
    const raw = await db().query<{ value: string; encrypted: boolean }>(
      `SELECT value, encrypted FROM skillgate.skill_config WHERE role_id = 'default' AND skill = 'pl_secret' AND key = 'api_token'`,
    );
    expect(raw.rows[0]!.encrypted).toBe(true);
    expect(raw.rows[0]!.value).not.toContain('tok-abc123');
  });

  it("R-CFG-08: a credential not present in the user's words is refused and not stored", async () => {
    await deleteSkillConfig(db(), 'default', 'pl_secret');
    const h = await rich();
    llm.script(
      { reply: callTools([SAVE_SKILL_CONFIG, { skill: 'pl_secret', parameter: 'api_token', value: 'tok-guessed-999' }]) },
      {
        check: (req) => {
          const r = lastToolResult(req);
          expect(r).toMatchObject({ success: false, refused: 'secret_not_in_message', need_param: 'api_token' });
        },
        reply: say('出于安全考虑，请直接在消息里发送 api_token。'),
      },
    );
    const out = await h.turn({ raw_input: '帮我把 pl_secret 配好，token 你自己想一个' });
    llm.assertDone();
    expect(textOf(out)).toContain('请直接在消息里发送 api_token');
    const stored = await getSkillConfig(db(), h.services.secretKey, 'default', 'pl_secret');
    expect(stored).toEqual({});
  });

  it('needs_config: the reply names the parameter to provide even when the model does not', async () => {
    await deleteSkillConfig(db(), 'default', 'pl_secret');
    const h = await rich();
    llm.script({ reply: callTools(['pl_secret', { query: 'x' }]) }, { reply: say('暂时查不了。') });
    const out = await h.turn({ raw_input: '查一下 x' });
    llm.assertDone();
    const body = textOf(out);
    expect(body).toContain('暂时查不了。');
    expect(body).toContain('技能「pl_secret」还缺少配置：api_token');
  });
});
