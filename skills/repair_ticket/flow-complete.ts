/**
 * 完成回复 and 登记费用 of `repair_ticket`: the worker's answer completes the ticket — cost
 * parsed from the text (never invented), photo kept with the ticket, status 已完成 — then the
 * reporter hears back on THEIR origin channel (address from the ticket row, never from
 * `actor_*`; R-MSG-07) with the photo, and ops get 「维修完成」.
 */
import type { Ctx } from './context.ts';
import { imageOf, isManager, keepFile, originOf, storedPath } from './context.ts';
import { instantValue, parseCost, saysDone, ticketNumber, ticketRef } from './lib.ts';
import { TICKETS, getTicket, query, update, type CallSkill, type Row } from './tables.ts';
import { needParam, notifyOps, publicTicket, say, waitForWorker } from './flow-report.ts';

function text(v: unknown): string {
  return typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Only the ticket's worker (the address it was sent to) or a team owner/admin may close it. */
function mayClose(ctx: Ctx, t: Row): boolean {
  return isManager(ctx) || (originOf(ctx).address !== '' && originOf(ctx).address === text(t.维修工联系方式));
}

/** A cost given as a parameter: a number, or digits (full-width, thousands commas) with an optional 元. */
function costParam(v: unknown): number | null | 'bad' {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 ? v : 'bad';
  const s = String(v)
    .normalize('NFKC')
    .trim()
    .replace(/\s*(元|块|rmb|cny)$/i, '')
    .replace(/^[¥￥]\s*/, '');
  if (!/^(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$/.test(s)) return 'bad';
  return Number(s.replace(/,/g, ''));
}

function yuan(n: number): string {
  return `${n.toLocaleString('zh-CN', { maximumFractionDigits: 2 })} 元`;
}

/** The address of the ticket's reporter: `<origin_channel>:<origin_openid>`, "" when unknown. */
export function reporterAddress(t: Row): string {
  const ch = text(t.origin_channel);
  const id = text(t.origin_openid);
  return ch && id ? `${ch}:${id}` : '';
}

/**
 * 完成回复: from the pending reply (`{reply: {raw_input, attachments}, state: {ticket_id}}`)
 * or called directly (`工单`, `说明`/`描述`, `费用`, `image`).
 */
export async function complete(
  p: Record<string, unknown>,
  ctx: Ctx,
  call: CallSkill,
  input: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const state = isRecord(input.state) ? input.state : {};
  const reply = isRecord(input.reply) ? input.reply : null;
  // A ticket the person chose (answering "which ticket?") wins over the waiting record's.
  const id = ticketNumber(p.ticket ?? state.ticket_id);
  if (id === null) return needParam('ticket', '请给出工单号，例如 工单=T-3。');
  const ref = ticketRef(id);
  const t = await getTicket(call, id);
  if (!t) return needParam('ticket', `没有工单 ${ref}。`);
  if (!mayClose(ctx, t))
    return {
      success: false,
      error: 'not the ticket worker',
      error_type: 'config',
      permission_denied: true,
      user_message: `工单 ${ref} 不是派给你的，只有接单的维修工或团队管理员可以完成它。`,
    };
  const note = reply ? text(reply.raw_input) : text(p.note ?? p.description);
  if (reply && p.ticket === undefined && !NAMES_TICKET.test(note.normalize('NFKC'))) {
    const open = await query(
      call,
      TICKETS,
      [
        { field: '状态', op: 'eq', value: '处理中' },
        { field: '维修工联系方式', op: 'eq', value: text(t.维修工联系方式) },
      ],
      MAX_CHOICES + 1,
    );
    if (open.length > 1) return whichTicket(open, note);
  }
  if (t.状态 === '已完成') return say(`工单 ${ref} 已经是「已完成」，这次回复没有再改动它。`, { ticket: publicTicket(t) });

  const given = costParam(p.cost);
  if (given === 'bad') return needParam('cost', `费用「${text(p.cost)}」看不懂，请只写数字，例如 费用=1200。`);
  const parsed = given !== null ? { cost: given } : parseCost(note);
  const files = reply && Array.isArray(reply.attachments) ? (reply.attachments as { type?: string; local_path?: string }[]) : [];
  const src = imageOf(files) || (typeof p.image === 'string' ? p.image : '');
  if (reply && !saysDone(note, parsed.cost !== null)) return progress(ctx, call, t, note, src);
  const photo = keepFile(ctx, src, ref, '完成照片');
  const data: Record<string, unknown> = {
    状态: '已完成',
    完成说明: note,
    完成时间: instantValue(new Date()),
    ...(parsed.cost !== null ? { 费用: parsed.cost } : {}),
    ...(photo ? { 完成照片: storedPath(ctx, photo) } : {}),
  };
  const done = await update(call, TICKETS, id, data);
  const cost = parsed.cost;

  const to = reporterAddress(done);
  const lines = [
    `**你报修的工单 ${ref} 已维修完成**`,
    `描述：${text(done.描述)}`,
    ...(text(done.位置) ? [`位置：${text(done.位置)}`] : []),
    `维修工：${text(done.维修工) || '（未记录）'}`,
    `费用：${cost !== null ? yuan(cost) : '未填写'}`,
    ...(note ? [`维修说明：${note}`] : []),
  ];
  const toReporter = to
    ? await call('send_message', {
        to,
        message: lines.join('\n'),
        ...(photo ? { attach: photo } : {}),
        idempotency_key: `repair_ticket:${ctx.org_id ?? ''}:${ref}:done`,
      })
    : { ok: false, error: '工单没有记录报修人的渠道' };
  const ops = await notifyOps(ctx, call, {
    title: '维修完成',
    message: `维修完成：${ref} ${text(done.描述)}\n维修工：${text(done.维修工) || '未知'}，费用：${cost !== null ? yuan(cost) : '未填写'}`,
    type: 'success',
    attach: photo,
    key: `${ref}:done`,
  });
  const heard =
    toReporter.ok === true
      ? `已通知报修人 ${text(done.报修人)}`
      : Number(toReporter.queued) > 0
        ? '给报修人的消息排队投递中'
        : `未能通知报修人：${text(toReporter.error) || '原因未知'}`;
  const md = [
    `已记录：工单 ${ref} 已完成${cost !== null ? `，费用 ${yuan(cost)}` : ''}${photo ? '，照片已保存' : ''}。${heard}。`,
    ...(cost === null
      ? [parsed.reason === 'magnitude' ? '费用需写成数字（如 12000），「万」「k」不会换算，已留空。' : '回复里没有找到费用，已留空。']
      : []),
  ].join('\n');
  return say(md, {
    ticket: publicTicket(done),
    cost,
    reporter_message: toReporter,
    ops_notify: ops,
    ...(cost === null ? { for_user: `补录费用：/repair_ticket action=登记费用 工单=${ref} 费用=<金额>` } : {}),
  });
}

/** A reply that names a ticket (「T-3 完成了」) is never ambiguous. */
const NAMES_TICKET = /(?<![A-Za-z0-9_])T\s*-?\s*\d+/i;
/** Most tickets offered as choices (the platform shows at most 10 options). */
const MAX_CHOICES = 10;

/**
 * A reply that fits several of the worker's open tickets: ask which one (docs/skill-authoring.md
 * "Questions with choices") and change nothing; the pick calls again with `ticket`.
 */
function whichTicket(open: Row[], note: string): Record<string, unknown> {
  const shown = open.slice(0, MAX_CHOICES);
  const options = shown.map((r) => {
    const where = text(r.位置);
    return { value: ticketRef(r.id), label: `${ticketRef(r.id)} ${text(r.描述).slice(0, 40)}${where ? `（${where}）` : ''}` };
  });
  const more = open.length > MAX_CHOICES ? `（只列出最近 ${MAX_CHOICES} 张；其他工单请在回复里写上工单号）` : '';
  return {
    success: false,
    error: `the reply fits ${open.length} open tickets (${options.map((o) => o.value).join(', ')}); ask which one, pass ticket`,
    error_type: 'recoverable',
    need_param: 'ticket',
    options,
    user_message: `你有 ${open.length > MAX_CHOICES ? `${MAX_CHOICES} 张以上` : `${open.length} 张`}处理中的工单，这条回复${note ? `「${note.slice(0, 60)}」` : ''}是哪一张的？选好之前不会改动任何工单。${more}`,
  };
}

/**
 * A reply that does not report the repair as done (「在路上」「还没修好，零件明天到」): the
 * reporter gets the note (and photo) on their channel, the ticket stays 处理中, and the wait
 * for the worker is registered again.
 */
async function progress(ctx: Ctx, call: CallSkill, t: Row, note: string, src: string): Promise<Record<string, unknown>> {
  const ref = ticketRef(t.id);
  const photo = keepFile(ctx, src, ref, `进展照片_${Date.now()}`);
  const to = reporterAddress(t);
  const sent = to
    ? await call('send_message', {
        to,
        message: `工单 ${ref} 进展：维修工 ${text(t.维修工) || ''} 说「${note}」`,
        ...(photo ? { attach: photo } : {}),
      })
    : { ok: false, error: '工单没有记录报修人的渠道' };
  const wait = await waitForWorker(ctx, call, t.id, text(t.维修工联系方式) || originOf(ctx).address);
  const heard =
    sent.ok === true
      ? '已转告报修人'
      : Number(sent.queued) > 0
        ? '给报修人的消息排队投递中'
        : `未能转告报修人：${text(sent.error) || '原因未知'}`;
  return say(`${heard}，工单 ${ref} 仍在处理中。`, {
    ticket: publicTicket(t),
    progress: true,
    for_user: '修好后可直接回复「完成了，费用 …元」并附照片。',
    reporter_message: sent,
    pending_reply: wait,
  });
}

/** 登记费用: set or correct the cost of a ticket (its worker or a team owner/admin). */
export async function setCost(p: Record<string, unknown>, ctx: Ctx, call: CallSkill): Promise<Record<string, unknown>> {
  const id = ticketNumber(p.ticket);
  if (id === null) return needParam('ticket', '请给出工单号，例如 工单=T-3。');
  const cost = costParam(p.cost);
  if (cost === null || cost === 'bad') return needParam('cost', '请给出费用（数字），例如 费用=1200。');
  const t = await getTicket(call, id);
  if (!t) return needParam('ticket', `没有工单 ${ticketRef(id)}。`);
  if (!mayClose(ctx, t))
    return {
      success: false,
      error: 'not the ticket worker',
      error_type: 'config',
      permission_denied: true,
      user_message: `只有工单 ${ticketRef(id)} 的维修工或团队管理员可以登记费用。`,
    };
  const done = await update(call, TICKETS, id, { 费用: cost });
  return say(`工单 ${ticketRef(id)} 的费用已登记为 ${yuan(cost)}。`, { ticket: publicTicket(done), cost });
}
