/**
 * Suggestions for plain text on each channel (docs/chat-authoring.md "Plain text"): the command
 * planner's answer, composed for the adapter's own capabilities, goes out through the adapter's
 * ordinary question rendering — native buttons on a channel with buttons that shows markdown,
 * a numbered list on a text channel — and a press comes back as the pick (the callback
 * `<n>:<token>`, or the number sent as text where a button sends a message).
 */
import { expect, it } from 'vitest';
import type { ModelTool } from '../../src/registry/types.ts';
import { CommandPlanner } from '../../src/turn/planners/command.ts';
import { composeReply } from '../../src/turn/reply/index.ts';
import { nextSeq, type Bed } from './harness.ts';
import type { AdapterContractOptions } from './types.ts';

function tool(name: string, description: string): ModelTool {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties: {} } } };
}

const TOOLS = [
  tool('repair_ticket', '[工单] 报修工单：报修设备故障，派给值班维修工。'),
  tool('repair_status', '[工单] 查询报修进度。'),
  tool('repair_report', '[工单] 报修统计报表。'),
  tool('word_count', '[示例] 统计一段文字的字数。'),
  tool('help', '[帮助] 列出当前助手能做的事。'),
];

const TOKEN = 'ch_contract_suggestion_token';

/** Register the suggestion checks. */
export function registerSuggestionChecks(opts: AdapterContractOptions, bed: () => Bed): void {
  const p = opts.outbound;

  it('plain-text suggestions: native buttons (or a numbered list on a text channel); a press is the pick', async () => {
    const b = bed();
    const caps = b.adapter.capabilities;
    const planner = new CommandPlanner();
    const result = await planner.handle({
      text: '泵房漏水了，我要报修',
      raw_input: '泵房漏水了，我要报修',
      lang: 'zh-CN',
      tools: TOOLS,
      materials: [],
      invoke: () => Promise.reject(new Error('a suggestion calls nothing')),
      signal: new AbortController().signal,
      progress: () => undefined,
      display: caps.display,
      commandButtons: caps.command_buttons === true,
    });
    const now = b.clock.now();
    const messages = composeReply({
      plannerText: result.text,
      invocations: result.invocations,
      capabilities: caps,
      lang: 'zh-CN',
      now: () => now,
      choices: new Map([[0, { token: TOKEN, expiresAt: new Date(now.getTime() + 600_000) }]]),
    });
    b.fake.reset();
    for (const m of messages) {
      const res = await b.adapter.send(p.target, m);
      expect(res.ok, res.ok ? '' : res.error).toBe(true);
    }
    const sent = b.fake.calls(p.sendPath).filter((r) => r.seq >= 0);
    const texts = sent.map((r) => p.sentText(r) ?? '').join('\n');
    expect(texts).toContain('和这句话最接近的是');
    const payloads = sent.flatMap((r) => p.buttonPayloads(r));

    if (!(caps.buttons && caps.display === 'rich')) {
      expect(payloads).toEqual([]);
      for (const n of [1, 2, 3]) expect(texts).toMatch(new RegExp(`(^|\\n)${n}\\. /repair_`));
      return;
    }
    expect(payloads).toHaveLength(3);
    for (const d of payloads) expect(Buffer.byteLength(d, 'utf8')).toBeLessThanOrEqual(p.buttonLimitBytes);
    const before = b.host.calls.length;
    for (const d of payloads) {
      const chat = p.target.chat_id;
      const r = await b.deliver(opts.generators.buttonPress({ seq: nextSeq(), data: d, chatId: chat, actorId: chat }));
      expect(r.status).toBe(200);
    }
    const picks = b.host.calls
      .slice(before)
      .filter((c) => c.result === 'accepted')
      .map((c) => (c.msg.kind === 'callback' ? `${c.msg.callback?.action}:${c.msg.callback?.token}` : `${c.msg.raw_input}:${TOKEN}`));
    expect(picks).toEqual([`1:${TOKEN}`, `2:${TOKEN}`, `3:${TOKEN}`]);
  });
}
