/**
 * 查询 and 值班设置 of `repair_ticket`: list tickets (all, by status, or one), and register a
 * maintenance worker and put them on duty (the only one on duty afterwards).
 */
import type { Ctx } from './context.ts';
import { isManager, originOf, timeZoneOf } from './context.ts';
import { showInstant } from '../../src/present/clock.ts';
import { ticketNumber, ticketRef } from './lib.ts';
import { STATUSES, TICKETS, WORKERS, dt, getTicket, insert, query, update, type CallSkill, type Row } from './tables.ts';
import { needParam, publicTicket, say } from './flow-report.ts';

function text(v: unknown): string {
  return typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '';
}

/** A markdown table cell: no pipes or line breaks. */
function cell(v: unknown): string {
  return (
    text(v)
      .replace(/\|/g, '｜')
      .replace(/\s*\n\s*/g, ' ') || '—'
  );
}

/** A valid `send_message` address `<channel>[@<account>]:<id>` (docs/messaging.md). */
const ADDRESS_RE = /^[a-z][a-z0-9_]*(?:@[A-Za-z0-9_.-]+)?:\S+$/;

/** 查询: one ticket (工单=T-3), or the newest 20, optionally by 状态. */
export async function listTickets(p: Record<string, unknown>, _ctx: Ctx, call: CallSkill): Promise<Record<string, unknown>> {
  if (p.ticket !== undefined && p.ticket !== '') {
    const id = ticketNumber(p.ticket);
    const t = id === null ? null : await getTicket(call, id);
    if (!t) return needParam('ticket', `没有工单 ${text(p.ticket)}。`);
    const md = [
      `**工单 ${ticketRef(t.id)}**（${cell(t.状态)}）`,
      `描述：${cell(t.描述)}`,
      `位置：${cell(t.位置)}`,
      `报修人：${cell(t.报修人)}`,
      `维修工：${cell(t.维修工)}`,
      `费用：${t.费用 === null || t.费用 === undefined ? '—' : `${text(t.费用)} 元`}`,
      `报修时间：${cell(showInstant(text(t.created_at), timeZoneOf(_ctx)))}`,
      `完成时间：${cell(showInstant(text(t.完成时间), timeZoneOf(_ctx)))}`,
      ...(text(t.完成说明) ? [`维修说明：${cell(t.完成说明)}`] : []),
    ].join('\n');
    return say(md, { ticket: publicTicket(t) });
  }
  const status = text(p.status);
  if (status && !(STATUSES as readonly string[]).includes(status)) return needParam('status', `状态只能是 ${STATUSES.join('、')}。`);
  const rows = await query(call, TICKETS, status ? [{ field: '状态', op: 'eq', value: status }] : [], 20);
  if (rows.length === 0) return say(status ? `没有「${status}」的工单。` : '还没有工单。', { tickets: [] });
  const md = [
    `| 工单号 | 状态 | 描述 | 位置 | 报修人 | 维修工 | 费用 |`,
    `|---|---|---|---|---|---|---|`,
    ...rows.map(
      (t) =>
        `| ${ticketRef(t.id)} | ${cell(t.状态)} | ${cell(t.描述)} | ${cell(t.位置)} | ${cell(t.报修人)} | ${cell(t.维修工)} | ${cell(t.费用)} |`,
    ),
  ].join('\n');
  return say(md, { tickets: rows.map(publicTicket), count: rows.length });
}

/**
 * 值班设置: register (or update) a worker and put them on duty; every other worker goes off
 * duty. Without 联系方式 the sender registers themselves (their own channel address, name
 * and employee number); registering someone else needs team owner/admin. `值班=false` takes
 * the worker off duty.
 */
export async function setDuty(p: Record<string, unknown>, ctx: Ctx, call: CallSkill): Promise<Record<string, unknown>> {
  const self = originOf(ctx);
  const contact = text(p.contact) || self.address;
  if (!contact)
    return needParam('contact', '请给出维修工的联系方式，格式 <渠道>:<ID>，如 telegram:12345、feishu:ou_xxx、web:demo_worker。');
  if (!ADDRESS_RE.test(contact))
    return needParam('contact', `联系方式「${contact}」格式不对，应为 <渠道>[@<账号>]:<ID>，如 telegram:12345。`);
  if (contact !== self.address && !isManager(ctx)) {
    return {
      success: false,
      error: 'only owner/admin may register others',
      error_type: 'config',
      permission_denied: true,
      user_message: '只有团队 owner/admin 可以登记别人；登记自己时不用写联系方式。',
    };
  }
  const mine = contact === self.address;
  const name = text(p.name) || (mine ? text(ctx.actor_name) : '');
  const emp = text(p.emp_no) || (mine ? text(ctx.actor_emp_no) : '');
  const on = !(p.on_duty === false || p.on_duty === 'false' || p.on_duty === '否' || p.on_duty === 0);
  const existing = (await query(call, WORKERS, [{ field: '联系方式', op: 'eq', value: contact }], 1))[0] as Row | undefined;
  if (!existing && !name) return needParam('name', '请给出维修工姓名，例如 姓名=李四。');
  if (on) await dt(call, 'update_by', { table_name: WORKERS, filters: [{ field: '值班', op: 'eq', value: true }], data: { 值班: false } });
  const data = { ...(name ? { 姓名: name } : {}), ...(emp ? { 工号: emp } : {}), 联系方式: contact, 值班: on };
  const w = existing ? await update(call, WORKERS, existing.id, data) : await insert(call, WORKERS, data);
  const md = on ? `已登记：${text(w.姓名)}（${contact}）现在值班，新报修会发给 TA。` : `已登记：${text(w.姓名)}（${contact}）不在值班。`;
  return say(md, { worker: w });
}
