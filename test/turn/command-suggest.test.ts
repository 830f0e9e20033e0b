/**
 * Plain text without a model gets a short answer (docs/chat-authoring.md "Plain text"): the
 * three closest skills by name, purpose and tags (MiniSearch over Intl.Segmenter words), as
 * example commands — never the whole help list, under 300 characters for any input.
 */
import { describe, expect, it } from 'vitest';
import type { ModelTool } from '../../src/registry/types.ts';
import { CommandPlanner } from '../../src/turn/planners/command.ts';
import { closestTools, suggestQuestion, suggestText, tokenize } from '../../src/turn/planners/command-suggest.ts';
import type { PlannerTurn } from '../../src/turn/planner.ts';

function tool(name: string, description: string, required: string[] = []): ModelTool {
  return {
    type: 'function',
    function: {
      name,
      description,
      parameters: { type: 'object', properties: Object.fromEntries(required.map((r) => [r, { type: 'string' }])), required },
    },
  };
}

const TOOLS = [
  tool('datatable', '[数据] 数据表统一入口：建表、查询、统计、增删改、批量导入、SQL（PostgreSQL，按组织隔离）。input = {"action": …}'),
  tool('repair_ticket', '[工单] 报修工单：报修（描述+位置+照片）→ 通知运维、派给值班维修工并等待回复。'),
  tool('notify', '[消息] 单向通知：把一条消息推到管理员配置的通知目标。', ['message']),
  tool('send_message', '[消息] 发消息给双向渠道上的具体的人。', ['to', 'message']),
  tool('word_count', '[示例] 统计一段文字的字数、词数和行数。', ['text']),
  tool('countdown', '[示例] 慢任务演示——按秒倒计时。'),
  tool('help', '[帮助] 列出当前助手能做的事。'),
];

describe('plain text suggestions', () => {
  it('Chinese is cut into words (Intl.Segmenter), names split at _ and -', () => {
    expect(tokenize('查询数据表')).toEqual(expect.arrayContaining(['查询', '数据']));
    expect(tokenize('repair_ticket')).toEqual(['repair', 'ticket']);
  });

  it('the closest skills by purpose, name and tags', () => {
    expect(closestTools('我想查询一下数据表', TOOLS)[0]).toBe('datatable');
    expect(closestTools('泵房漏水了，我要报修', TOOLS)[0]).toBe('repair_ticket');
    expect(closestTools('word count please', TOOLS)[0]).toBe('word_count');
    expect(closestTools('买一杯咖啡', [tool('coffee', 'Order drinks')], () => ['咖啡'])[0]).toBe('coffee');
  });

  it('a sentence gets under 300 characters with at most three commands, not the help list', async () => {
    const planner = new CommandPlanner();
    const turn = {
      text: '帮我查询一下客户数据表',
      raw_input: '帮我查询一下客户数据表',
      lang: 'zh-CN',
      tools: TOOLS,
      materials: [],
      invoke: async () => ({}),
      signal: new AbortController().signal,
      progress: () => {},
      commandButtons: true,
    } as unknown as PlannerTurn;
    const r = await planner.handle(turn);
    expect([...r.text].length).toBeLessThan(300);
    expect(r.text).not.toContain('可用命令');
    const commands = r.text.match(/^- `\/[a-z_]+/gm) ?? [];
    expect(commands.length).toBeGreaterThan(0);
    expect(commands.length).toBeLessThanOrEqual(3);
    expect(commands[0]).toBe('- `/datatable');
    expect(r.invocations).toEqual([]);
  });

  it('an emoji and a 10 000-character paste also get a short answer', () => {
    for (const text of ['👍🎉', '漏水'.repeat(5000), 'x'.repeat(10_000)]) {
      const md = suggestText(text, TOOLS, 'zh-CN');
      expect([...md].length).toBeLessThan(300);
      expect((md.match(/^- `\//gm) ?? []).length).toBeGreaterThan(0);
    }
    expect(suggestText('👍', TOOLS, 'en')).toMatch(/^Without a model I only understand commands\. You could try:\n\n- `\/help`/);
  });

  it('where inline commands are not buttons, the suggestions are a question of the help skill', async () => {
    const invoked: string[] = [];
    const turn = {
      text: '泵房漏水了，我要报修',
      raw_input: '泵房漏水了，我要报修',
      lang: 'zh-CN',
      tools: TOOLS,
      materials: [],
      invoke: async (t: string) => {
        invoked.push(t);
        return {};
      },
      signal: new AbortController().signal,
      progress: () => {},
    } as unknown as PlannerTurn;
    const r = await new CommandPlanner().handle(turn);
    expect(invoked).toEqual([]);
    expect(r.text).toBe('');
    expect(r.invocations).toHaveLength(1);
    const inv = r.invocations[0]!;
    expect(inv.tool).toBe('help');
    expect(inv.envelope).toMatchObject({ success: false, need_param: 'skill', user_message: expect.stringContaining('最接近') });
    const options = inv.envelope.options as { value: string; label: string }[];
    expect(options[0]).toEqual({ value: 'repair_ticket', label: '/repair_ticket — 报修工单' });
    expect(options.length).toBeLessThanOrEqual(3);
    for (const o of options) expect([...o.label].length).toBeLessThanOrEqual(40);
  });

  it('a role without the help skill keeps the text answer', () => {
    const noHelp = TOOLS.filter((t) => t.function.name !== 'help');
    expect(suggestQuestion('泵房漏水了，我要报修', noHelp, 'zh-CN')).toBeNull();
    expect(suggestQuestion('泵房漏水了，我要报修', TOOLS, 'en')?.user_message).toBe(
      'Without a model I only understand commands. Closest to what you wrote:',
    );
  });
});
