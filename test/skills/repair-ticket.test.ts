/**
 * The `repair_ticket` skill's own rules without a gateway: action
 * normalisation (R-ACT-01..05), the cost in a worker's reply (never invented), and that the
 * reporter is addressed from the ticket row, never from `actor_*` (R-MSG-07). `call_skill` is
 * a recording stand-in; the full flow runs in test/e2e/repair-ticket.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { confinedFile, keepFile, storedPath } from '../../skills/repair_ticket/context.ts';
import { execute } from '../../skills/repair_ticket/handler.ts';
import {
  ACTIONS,
  ACTION_ALIASES,
  assertAliasTargets,
  parseCost,
  resolveAction,
  saysDone,
  ticketNumber,
} from '../../skills/repair_ticket/lib.ts';

describe('repair_ticket: cost in a reply', () => {
  it.each([
    ['完成了，费用 1200 元', 1200],
    ['修好了 费用：1,200', 1200],
    ['换了阀门，1200.5元', 1200.5],
    ['完成了，费用１２００元', 1200],
    ['合计 ¥ 35', 35],
    ['花了80块', 80],
    ['T-3 完成了，费用是 2,350.00 元', 2350],
  ])('%s → %s', (text, cost) => {
    expect(parseCost(text)).toEqual({ cost });
  });

  it.each(['完成了', '3号泵修好了，换了2个垫圈', 'T-12 已处理'])(
    'no cost word or currency mark → null, never a stray number: %s',
    (text) => {
      expect(parseCost(text)).toEqual({ cost: null, reason: 'none' });
    },
  );

  it('magnitude words are not converted (spec §7.5): asked again', () => {
    expect(parseCost('费用 1.2万')).toEqual({ cost: null, reason: 'magnitude' });
    expect(parseCost('花了3k元')).toEqual({ cost: null, reason: 'magnitude' });
  });
});

describe('repair_ticket: SKILL.md (R-ACT-09)', () => {
  const doc = readFileSync(join(import.meta.dirname, '..', '..', 'skills', 'repair_ticket', 'SKILL.md'), 'utf8');
  it('says to pass the action as the Chinese word, has the scenario → answer table, three call examples, every action', () => {
    expect(doc.length).toBeLessThan(8000);
    expect(doc).toContain('action 必须按原样传入中文原词');
    expect(doc).toMatch(/\| 用户想要 \| action \| 回答 \|/);
    expect((doc.match(/^\/repair_ticket action=/gm) ?? []).length).toBeGreaterThanOrEqual(3);
    for (const a of ACTIONS) expect(doc).toContain(`\`${a}\``);
  });
});

describe('repair_ticket: is the repair done?', () => {
  it.each(['完成了', '3号泵修好了', '搞定，换了阀门', 'done', '费用 300 元'])('done: %s', (t) => {
    expect(saysDone(t, parseCost(t).cost !== null)).toBe(true);
  });
  it.each(['在路上，半小时到', '还没修好，零件明天到', '无法修复，需要换泵', '修不好', 'not fixed yet'])('not done (progress): %s', (t) => {
    expect(saysDone(t, parseCost(t).cost !== null)).toBe(false);
  });
  it('「不好意思」 is no negation of 完成', () => {
    expect(saysDone('不好意思晚了，完成了', false)).toBe(true);
  });
});

describe('repair_ticket: actions (R-ACT)', () => {
  it('R-ACT-01 R-ACT-02 aliases map onto existing actions; English, case and Chinese fillers', () => {
    expect(() => assertAliasTargets()).not.toThrow();
    expect(() => assertAliasTargets({ x: '删除' })).toThrow();
    for (const v of Object.values(ACTION_ALIASES)) expect(ACTIONS).toContain(v);
    expect(resolveAction('Report')).toBe('报修');
    expect(resolveAction('new-ticket')).toBe('报修');
    expect(resolveAction('请帮我报修一下')).toBe('报修');
    expect(resolveAction('ASSIGN')).toBe('派单');
    expect(resolveAction('删除')).toBeUndefined();
    expect(ticketNumber('T-12')).toBe(12);
    expect(ticketNumber('t12')).toBe(12);
    expect(ticketNumber('T-1x')).toBeNull();
  });

  it('R-ACT-05 no action → need_param "action" with the list; nothing is called, also when the input looks like a report', async () => {
    const calls: string[] = [];
    const ctx = { call_skill: async (n: string) => (calls.push(n), { success: true }) };
    for (const input of [{}, { 描述: '3号泵漏水', 位置: '泵房' }]) {
      const r = await execute(input, ctx);
      expect(r).toMatchObject({ success: false, need_param: 'action', actions: [...ACTIONS] });
    }
    expect(await execute({ action: '删除' }, ctx)).toMatchObject({ success: false, need_param: 'action' });
    expect(calls).toEqual([]);
  });

  it('R-ACT-03 R-ACT-04 a normalised action and parameter keys are echoed in action_note', async () => {
    const h = fakeTables();
    const r = await execute({ action: 'list', 状态: '已完成' }, h.ctx({}));
    expect(r.action_note).toBe('list → 查询; 状态 → status');
    expect(r.success).toBe(true);
  });
});

/** A recording call_skill with one ticket (T-5) and in-memory updates. */
function fakeTables() {
  const ticket: Record<string, unknown> = {
    id: 5,
    描述: '3号泵漏水',
    位置: '泵房',
    状态: '处理中',
    报修人: '张三',
    origin_channel: 'feishu',
    origin_openid: 'ou_reporter',
    维修工: '李四',
    维修工联系方式: 'telegram:777',
  };
  const calls: { name: string; input: Record<string, unknown> }[] = [];
  const call = async (name: string, input: Record<string, unknown>): Promise<Record<string, unknown>> => {
    calls.push({ name, input });
    if (name === 'datatable') {
      const p = input.payload as Record<string, unknown>;
      if (input.action === 'list_tables') return { success: true, result: [{ title: '工单' }, { title: '维修工' }] };
      if (input.action === 'query') return { success: true, list: p.table_name === '工单' ? [ticket] : [] };
      if (input.action === 'update') return { success: true, record: Object.assign(ticket, p.data) };
    }
    if (name === 'send_message') return { ok: true, sent: 1, total: 1 };
    if (name === 'notify') return { sent: true, ok: true, status: 'sent' };
    return { success: false, error: `unexpected ${name}` };
  };
  return {
    ticket,
    calls,
    ctx: (extra: Record<string, unknown>) => ({ call_skill: call, org_id: 'demo', team_role: 'member', ...extra }),
  };
}

const fromWorker = { request: { channel: 'telegram', account: 'default', actor: { id: '777' }, attachments: [] }, actor_name: '李四' };

describe("repair_ticket: the worker's reply", () => {
  it('R-MSG-07 the reporter is addressed from the ticket row (origin_channel:origin_openid), never from actor_*', async () => {
    const h = fakeTables();
    const r = await execute(
      { reply: { raw_input: '完成了，费用 1200 元', attachments: [] }, state: { action: '完成回复', ticket_id: 5 }, ref: 'T-5' },
      h.ctx({ ...fromWorker, actor_key: 'li_si', actor_id: '2' }),
    );
    expect(r.success).toBe(true);
    const sends = h.calls.filter((c) => c.name === 'send_message');
    expect(sends.map((c) => c.input.to)).toEqual(['feishu:ou_reporter']);
    expect(h.ticket).toMatchObject({ 状态: '已完成', 费用: 1200 });
    expect(h.calls.find((c) => c.name === 'notify')!.input).toMatchObject({ title: '维修完成', target: 'ops' });
  });

  it('a reply without a cost completes the ticket with 费用 left empty and says how to add it (never invented)', async () => {
    const h = fakeTables();
    const r = await execute(
      { reply: { raw_input: '3号泵修好了', attachments: [] }, state: { action: '完成回复', ticket_id: 5 }, ref: 'T-5' },
      h.ctx(fromWorker),
    );
    expect(h.ticket.状态).toBe('已完成');
    expect('费用' in h.ticket).toBe(false);
    expect(String(r.display_md)).toContain('没有找到费用，已留空');
    expect(r.for_user).toBe('补录费用：/repair_ticket action=登记费用 工单=T-5 费用=<金额>'); // R-ACT-08: next steps as for_user
  });

  it('a progress note (「在路上」) is passed to the reporter, the ticket stays 处理中 and the wait is registered again', async () => {
    const h = fakeTables();
    const waits: Record<string, unknown>[] = [];
    const ctx = h.ctx({ ...fromWorker, await_reply: async (req: Record<string, unknown>) => (waits.push(req), { ok: true, id: '9' }) });
    const r = await execute(
      { reply: { raw_input: '在路上，半小时到', attachments: [] }, state: { action: '完成回复', ticket_id: 5 }, ref: 'T-5' },
      ctx,
    );
    expect(r).toMatchObject({ success: true, progress: true });
    expect(h.ticket.状态).toBe('处理中');
    const send = h.calls.find((c) => c.name === 'send_message')!;
    expect(send.input).toMatchObject({ to: 'feishu:ou_reporter' });
    expect(String(send.input.message)).toContain('在路上，半小时到');
    expect(waits).toEqual([
      { to: 'telegram:777', skill: 'repair_ticket', state: { action: '完成回复', ticket_id: 5 }, ref: 'T-5', expires_in_s: 604800 },
    ]);
    expect(h.calls.some((c) => c.name === 'notify')).toBe(false);
  });

  it('值班设置: a member registers only himself (address from his own message); registering someone else needs owner/admin', async () => {
    const h = fakeTables();
    const r = await execute({ action: '值班设置', 联系方式: 'telegram:555', 姓名: '王五' }, h.ctx(fromWorker));
    expect(r).toMatchObject({ success: false, permission_denied: true });
    expect(h.calls.filter((c) => c.name === 'datatable' && ['insert', 'update', 'update_by'].includes(String(c.input.action)))).toEqual([]);
  });

  it("someone who is not the ticket's worker (nor owner/admin) cannot complete it", async () => {
    const h = fakeTables();
    const other = { request: { channel: 'telegram', account: 'default', actor: { id: '999' }, attachments: [] } };
    const r = await execute({ action: '完成回复', ticket: 'T-5', cost: 10 }, h.ctx(other));
    expect(r).toMatchObject({ success: false, permission_denied: true });
    expect(h.ticket.状态).toBe('处理中');
  });
});

describe('repair_ticket: photo paths are confined to the workspaces', () => {
  const data = mkdtempSync(join(tmpdir(), 'rt-files-'));
  const ws = join(data, 'workspaces', 'default', 's1');
  const other = join(data, 'workspaces', 'default', 's2');
  mkdirSync(ws, { recursive: true });
  mkdirSync(other, { recursive: true });
  writeFileSync(join(other, 'pump.png'), 'png');
  writeFileSync(join(data, 'secret.key'), 'k');
  symlinkSync(join(data, 'secret.key'), join(ws, 'link.png'));
  const ctx = { workspace_dir: ws };

  it('a photo of another session is copied to repair_ticket/T-n/ and stored relative to the workspaces root', () => {
    const kept = keepFile(ctx, join(other, 'pump.png'), 'T-1', '报修照片');
    expect(kept).toMatch(/workspaces\/default\/s1\/repair_ticket\/T-1\/报修照片\.png$/);
    expect(storedPath(ctx, kept)).toBe('default/s1/repair_ticket/T-1/报修照片.png');
    expect(confinedFile(ctx, 'default/s1/repair_ticket/T-1/报修照片.png')).toBe(kept);
  });

  it.each(['/etc/hostname', '../../secret.key', join(data, 'secret.key'), join(ws, 'link.png')])(
    'a path outside the workspaces is refused: %s',
    (p) => {
      expect(confinedFile(ctx, p)).toBe('');
      expect(keepFile(ctx, p, 'T-1', 'x')).toBe('');
    },
  );
});
