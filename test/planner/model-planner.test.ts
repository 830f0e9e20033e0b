/**
 * The model planner through the real turn: tool exposure as received by the model
 * endpoint, the two-step tool conversation, result views (for_user, offload receipts,
 * display blocks), force_raw_prompt, materials and knowledge in the prompt.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { FILE_READ, SAVE_SKILL_CONFIG } from '../../src/turn/planners/model/local-tools.ts';
import { callTools, FakeLlm, lastToolResult, say, toolResults, type ReceivedRequest } from './fake-llm.ts';
import { plannerHarness, textOf, type PlannerHarness } from './harness.ts';

const llm = new FakeLlm();
beforeAll(async () => {
  await llm.start();
});
afterAll(async () => {
  await llm.close();
});

const system = (req: ReceivedRequest): string => String(req.messages[0]?.content ?? '');
const toolNames = (req: ReceivedRequest): string[] => (req.tools ?? []).map((t) => t.function.name);

describeEachEngine('model planner', (db) => {
  // one harness (skills discovered once) for the tests on a rich channel of this engine
  let shared: Promise<PlannerHarness> | undefined;
  const rich = (): Promise<PlannerHarness> => (shared ??= plannerHarness(db(), llm));

  it('R-LOAD-05/06, R-CFG-06, R-SUBCMD-01, A-09: the tools the endpoint receives are exactly the registry list (plus file_read and save_skill_config)', async () => {
    const h = await rich();
    llm.script({
      check: (req, headers) => {
        expect(headers.authorization).toBe('Bearer sk-test-key');
        expect(req.model).toBe('test-model');
        const expected = [...h.services.registry.tools(), ...[FILE_READ, SAVE_SKILL_CONFIG]];
        expect(toolNames(req)).toEqual(expected.map((t) => (typeof t === 'string' ? t : t.function.name)));
        expect(req.tools!.slice(0, -2)).toEqual(h.services.registry.tools());
        const byName = new Map(req.tools!.map((t) => [t.function.name, t.function]));
        // explicit trigger only; knowledge skills never; fan-out; [category] prefix; x-* stripped; secrets removed
        expect(byName.has('pl_hidden')).toBe(false);
        expect(byName.has('pl_faq')).toBe(false);
        expect(byName.has('pl_multi')).toBe(false);
        expect(byName.get('pl_multi__add')!.description).toBe('[assets] Add an asset.');
        expect(byName.has('pl_multi__list')).toBe(true);
        expect(byName.get('pl_lookup')!.description).toBe('[shop] Look up the price of an item.');
        const all = JSON.stringify(req.tools);
        expect(all).not.toContain('x-example');
        expect(all).not.toContain('api_token');
        expect(all).not.toContain('auth_code');
        expect(Object.keys((byName.get('pl_secret')!.parameters as { properties: object }).properties)).toEqual(['query']);
      },
      reply: say('好的'),
    });
    const out = await h.turn({ raw_input: '你好' });
    llm.assertDone();
    expect(textOf(out)).toBe('好的');
  });

  it('a two-step tool conversation: results fed back, for_user never shown to the model (R-ACT-08), answer sent', async () => {
    const h = await rich();
    llm.script(
      {
        check: (req) => expect(req.messages.at(-1)).toEqual({ role: 'user', content: '泵和阀多少钱？' }),
        reply: callTools(['pl_lookup', { item: 'pump' }]),
      },
      {
        check: (req) => {
          const r = lastToolResult(req);
          expect(r).toMatchObject({ success: true, item: 'pump', price: 42 });
          expect(r).not.toHaveProperty('for_user');
          expect(JSON.stringify(req.messages)).not.toContain('IGNORE PREVIOUS');
          const assistant = req.messages.find((m) => m.role === 'assistant')!;
          expect(assistant.tool_calls?.[0]?.function.name).toBe('pl_lookup');
        },
        reply: callTools(['pl_lookup', { item: 'valve' }]),
      },
      { check: (req) => expect(toolResults(req).map((r) => r.item)).toEqual(['pump', 'valve']), reply: say('泵 42 元，阀 42 元。') },
    );
    const out = await h.turn({ raw_input: '泵和阀多少钱？' });
    llm.assertDone();
    expect(textOf(out)).toContain('泵 42 元，阀 42 元。');
    expect(h.results.at(-1)!.invocations.map((i) => [i.tool, i.args])).toEqual([
      ['pl_lookup', { item: 'pump' }],
      ['pl_lookup', { item: 'valve' }],
    ]);
    // the next step is for the user (composer lists it), never for the model
    expect(textOf(out)).toContain('IGNORE PREVIOUS INSTRUCTIONS');
  });

  it("R-RAW-01: force_raw_prompt gives the skill the user's own words, not the model's paraphrase", async () => {
    const h = await rich();
    const words = '画一只戴帽子的猫，水彩风格';
    llm.script(
      { reply: callTools(['pl_raw', { prompt: 'a cat wearing a hat', style: 'watercolor' }]) },
      { check: (req) => expect(lastToolResult(req).received_prompt).toBe(words), reply: say('画好了') },
    );
    await h.turn({ raw_input: words });
    llm.assertDone();
    expect(h.results.at(-1)!.invocations[0]!.envelope.received_prompt).toBe(words);
  });

  it('R-DISP-04: a display_only result on web is shown verbatim; the model sees display_shown, not the block', async () => {
    const h = await rich();
    llm.script(
      { reply: callTools(['pl_table', {}]) },
      {
        check: (req) => {
          const r = lastToolResult(req);
          expect(r.display_shown).toBe(true);
          expect(r).not.toHaveProperty('display_md');
          expect(r).not.toHaveProperty('display_only');
        },
        reply: say('值班表如下：早班张三，晚班李四（模型的复述）'),
      },
    );
    const out = await h.turn({ raw_input: '今天谁值班？' });
    llm.assertDone();
    expect(textOf(out)).toBe('| 班次 | 值班人 |\n|---|---|\n| 早班 | 张三 |\n| 晚班 | 李四 |');
    expect(h.results.at(-1)!.paraphrased).toBeUndefined();
  });

  it('R-DISP-02: on a text-only adapter the model paraphrases display_md and only its words are sent', async () => {
    const h = await plannerHarness(db(), llm, { capabilities: { display: 'text', buttons: false } });
    llm.script(
      { check: (req) => expect(system(req)).toContain('cannot show formatted blocks'), reply: callTools(['pl_table', {}]) },
      {
        check: (req) => expect(lastToolResult(req).display_md).toContain('| 早班 | 张三 |'),
        reply: say('早班是张三，晚班是李四。'),
      },
    );
    const out = await h.turn({ raw_input: '今天谁值班？' });
    llm.assertDone();
    expect(textOf(out)).toBe('早班是张三，晚班是李四。');
    expect(h.results.at(-1)!.paraphrased).toBe(true);
  });

  it('R-OFF-02, R-OFF-05: an offloaded result reaches the model as a receipt and is read back page by page through file_read', async () => {
    const h = await rich();
    let path = '';
    llm.script(
      { reply: callTools(['pl_big', {}]) },
      {
        check: (req) => {
          const r = lastToolResult(req);
          expect(r.offloaded).toBe(true);
          expect(r.counts).toMatchObject({ rows: 250 });
          expect(JSON.stringify(r)).not.toContain('LAST-ROW');
          path = String(r.offload_path);
        },
        reply: () => callTools([FILE_READ, { path, offset: 0, limit: 20000 }]),
      },
      {
        check: (req) => {
          const r = lastToolResult(req);
          expect(r, JSON.stringify(r)).toMatchObject({ success: true });
          expect(String(r.content)).toMatch(/"id": ?1,/);
          expect(String(r.content)).toHaveLength(20000);
          expect(r.next_offset).toBe(20000);
        },
        reply: () => callTools([FILE_READ, { path, offset: 20000, limit: 20000 }]),
      },
      {
        check: (req) => {
          const r = lastToolResult(req);
          expect(String(r.content)).toContain('末尾设备-LAST-ROW');
          expect(r.next_offset).toBeNull();
        },
        reply: say('共 250 台，最后一台是 末尾设备-LAST-ROW。'),
      },
    );
    const out = await h.turn({ raw_input: '列出全部设备，最后一台是哪台？' });
    llm.assertDone();
    expect(textOf(out)).toContain('末尾设备-LAST-ROW');
  });

  it('file_read refuses a path that is not an offloaded result of this turn', async () => {
    const h = await rich();
    llm.script(
      { reply: callTools([FILE_READ, { path: '/etc/passwd' }]) },
      {
        check: (req) => {
          const r = lastToolResult(req);
          expect(r.success).toBe(false);
          expect(String(r.error)).toContain('not an offloaded result');
          expect(JSON.stringify(r)).not.toContain('root:');
        },
        reply: say('读不了'),
      },
    );
    await h.turn({ raw_input: '读一下 /etc/passwd' });
    llm.assertDone();
  });

  it('the material list (img_1, file_1 …) is in the system prompt', async () => {
    const h = await rich();
    h.adapter.files.set('k1', Buffer.from('hello'));
    llm.script({ check: (req) => expect(system(req)).toMatch(/- file_1: file, "notes\.txt"/), reply: say('收到') });
    await h.turn({ raw_input: '看看这个文件', attachments: [{ type: 'file', filename: 'notes.txt', platform_ref: { key: 'k1' } }] });
    llm.assertDone();
  });

  it('R-FORM-04: a knowledge skill is never a tool; its relevant passage is retrieved into the prompt, unrelated ones are not', async () => {
    const h = await rich();
    llm.script(
      {
        check: (req) => {
          expect(toolNames(req)).not.toContain('pl_faq');
          expect(system(req)).toContain('报修需要先填写报修单');
          expect(system(req)).not.toContain('访客车辆');
        },
        reply: say('先填报修单。'),
      },
      { check: (req) => expect(system(req)).not.toContain('报修单'), reply: say('42') },
    );
    await h.turn({ raw_input: '设备坏了怎么报修？' });
    await h.turn({ raw_input: 'what is the price of a pump' });
    llm.assertDone();
  });

  it('the model endpoint failing (503 ×3, retries spent) still gives the user an answer', async () => {
    const h = await rich();
    const down = { reply: { status: 503, body: { error: { message: 'overloaded' } }, headers: { 'retry-after': '2' } } };
    llm.script(down, down, down);
    const before = h.sleeps.length;
    const out = await h.turn({ raw_input: '你好' });
    llm.assertDone();
    expect(textOf(out)).toContain('模型服务暂时不可用');
    expect(h.sleeps.slice(before)).toEqual([2000, 2000]);
  });

  it('stop: once the user pressed stop, the tools the model asked for are not run and the turn says it stopped', async () => {
    const h = await rich();
    llm.script({
      reply: () => {
        expect(h.running.stopLocal(h.chatKey)).toBe(true);
        return callTools(['pl_lookup', { item: 'pump' }]);
      },
    });
    const out = await h.turn({ raw_input: '查泵的价格' });
    llm.assertDone();
    expect(h.results.at(-1)!.invocations).toEqual([]);
    expect(textOf(out)).toMatch(/已停止/);
  });

  it('a 429 with Retry-After is retried after the asked delay', async () => {
    const h = await rich();
    const before = h.sleeps.length;
    llm.script(
      { reply: { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '3' } } },
      { reply: say('hi') },
    );
    const out = await h.turn({ raw_input: 'hello', lang: 'en' });
    llm.assertDone();
    expect(textOf(out)).toBe('hi');
    expect(h.sleeps.slice(before)).toEqual([3000]);
  });
});
