/**
 * 报修 and 派单 of `repair_ticket`: create the ticket with the reporter's origin (channel,
 * open_id, session — the only place the reporter's address ever comes from), keep the photo,
 * notify ops, send the ticket to the worker on duty and wait for their reply (pending reply
 * whose continuation is `repair_ticket` with `state.action = 完成回复`).
 */
import type { Ctx } from './context.ts';
import { attachable, keepFile, messagePhoto, originOf, param, storedPath } from './context.ts';
import { instantValue, ticketNumber, ticketRef } from './lib.ts';
import { TICKETS, WORKERS, getTicket, insert, query, update, type CallSkill, type Row } from './tables.ts';

/** Default wait for a worker's reply: 7 days. */
export const DEFAULT_WAIT_S = 7 * 24 * 3600;

function text(v: unknown): string {
  return typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '';
}

/** A failure the caller can fix (missing or wrong parameter). */
export function needParam(name: string, user_message: string): Record<string, unknown> {
  return { success: false, error: `${name}: ${user_message}`, error_type: 'recoverable', need_param: name, user_message };
}

/** The answer shown to the user as is. */
export function say(md: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { success: true, ...extra, display_md: md, display_only: true };
}

/** A ticket for the model: no file paths. */
export function publicTicket(t: Row): Record<string, unknown> {
  const { 报修照片: a, 完成照片: b, origin_session_id: _s, ...rest } = t;
  return { ...rest, 工单号: ticketRef(t.id), 有报修照片: Boolean(a), 有完成照片: Boolean(b) };
}

/** `notify` to the ops target; the outcome, never thrown (R-MSG-08: a failure rolls nothing back). */
export async function notifyOps(
  ctx: Ctx,
  call: CallSkill,
  n: { title: string; message: string; type: string; attach: string; key: string },
): Promise<Record<string, unknown>> {
  const r = await call('notify', {
    target: param(ctx, 'ops_target', 'ops'),
    title: n.title,
    message: n.message,
    type: n.type,
    ...(n.attach ? { attach: n.attach } : {}),
    idempotency_key: `repair_ticket:${ctx.org_id ?? ''}:${n.key}`,
  });
  return {
    sent: r.sent === true,
    status: r.status ?? (r.sent ? 'sent' : 'failed'),
    ...(r.sent ? {} : { error: r.error ?? r.user_message }),
  };
}

/** The worker on duty (newest first), or null. */
export async function dutyWorker(call: CallSkill): Promise<Row | null> {
  return (await query(call, WORKERS, [{ field: '值班', op: 'eq', value: true }], 1))[0] ?? null;
}

/**
 * Register the pending reply for the worker at `to` on ticket `id`: their next message runs
 * `repair_ticket` with `state = {action: 完成回复, ticket_id}` (docs/messaging.md).
 * @returns await_reply's answer `{ok, id, expires_at}` / `{ok: false, error}`
 */
export async function waitForWorker(ctx: Ctx, call: CallSkill, id: number | string, to: string): Promise<Record<string, unknown>> {
  const req = {
    to,
    skill: 'repair_ticket',
    state: { action: '完成回复', ticket_id: Number(id) },
    ref: ticketRef(id),
    expires_in_s: Number(param(ctx, 'reply_wait_s', String(DEFAULT_WAIT_S))) || DEFAULT_WAIT_S,
  };
  return typeof ctx.await_reply === 'function' ? ctx.await_reply(req) : call('await_reply', req);
}

/**
 * Send ticket `t` to `worker` (with the report photo) and register the pending reply for
 * their answer; the ticket becomes 处理中 and records who has it. When the message could
 * not be sent at all the ticket stays as it was (待处理) and nothing waits.
 * @returns `{sent, wait}`: send_message's and await_reply's answers
 */
export async function dispatchTo(
  ctx: Ctx,
  call: CallSkill,
  t: Row,
  worker: Row,
): Promise<{ sent: Record<string, unknown>; wait: Record<string, unknown>; ticket: Row }> {
  const ref = ticketRef(t.id);
  const to = text(worker.联系方式);
  const photo = attachable(ctx, t.报修照片, ref, '报修照片');
  const lines = [
    `**新工单 ${ref}**`,
    `描述：${text(t.描述)}`,
    ...(text(t.位置) ? [`位置：${text(t.位置)}`] : []),
    `报修人：${text(t.报修人) || '（未知）'}`,
    '',
    `修好后直接回复这条消息，写上费用并附完成照片，例如「完成了，费用 1200 元」。同时有多张工单时，回复里带上工单号 ${ref}。`,
  ];
  const sent = await call('send_message', {
    to,
    message: lines.join('\n'),
    ...(photo ? { attach: photo } : {}),
    idempotency_key: `repair_ticket:${ctx.org_id ?? ''}:${ref}:to:${to}`,
  });
  if (!(sent.ok === true || Number(sent.queued) > 0)) return { sent, wait: { ok: false, error: 'not sent' }, ticket: t };
  const wait = await waitForWorker(ctx, call, t.id, to);
  const ticket = await update(call, TICKETS, t.id, {
    状态: '处理中',
    维修工: text(worker.姓名),
    维修工工号: text(worker.工号),
    维修工联系方式: to,
    派单时间: instantValue(new Date()),
  });
  return { sent, wait, ticket };
}

function deliveryNote(sent: Record<string, unknown>): string {
  if (sent.ok === true) return '已送达';
  if (Number(sent.queued) > 0) return '排队投递中';
  return `发送失败：${text(sent.error) || '原因未知'}`;
}

/** 报修: new ticket; ops notified; the worker on duty gets it and a pending reply. */
export async function report(p: Record<string, unknown>, ctx: Ctx, call: CallSkill): Promise<Record<string, unknown>> {
  const desc = text(p.description);
  if (!desc) return needParam('description', '请描述故障，例如：/repair_ticket action=报修 描述="3号泵漏水" 位置=泵房，可同时附上照片。');
  const origin = originOf(ctx);
  let t = await insert(call, TICKETS, {
    描述: desc,
    位置: text(p.location),
    状态: '待处理',
    报修人: text(ctx.actor_name),
    报修人工号: text(ctx.actor_emp_no),
    origin_channel: origin.channel,
    origin_openid: origin.openid,
    origin_session_id: text(ctx.session_id),
  });
  const ref = ticketRef(t.id);
  const given = text(p.image);
  const photo = keepFile(ctx, given || messagePhoto(ctx), ref, '报修照片');
  if (photo) t = await update(call, TICKETS, t.id, { 报修照片: storedPath(ctx, photo) });

  const worker = await dutyWorker(call);
  let dispatched: Awaited<ReturnType<typeof dispatchTo>> | null = null;
  if (worker) {
    dispatched = await dispatchTo(ctx, call, t, worker);
    t = dispatched.ticket;
  }
  const where = text(p.location) ? `（${text(p.location)}）` : '';
  const ops = await notifyOps(ctx, call, {
    title: `新报修 ${ref}`,
    message: `新报修 ${ref}：${desc}${where}\n报修人：${text(ctx.actor_name) || origin.address || '未知'}\n${worker ? `已派给：${text(worker.姓名)}` : '暂无值班维修工，待派单'}`,
    type: 'warning',
    attach: photo,
    key: `${ref}:new`,
  });
  const md = [
    `已提交报修，工单号 **${ref}**。`,
    !worker
      ? '当前没有值班维修工，工单待派单；运维已收到通知。'
      : dispatched!.ticket.状态 === '处理中'
        ? `已派给值班维修工 ${text(worker.姓名)}（${deliveryNote(dispatched!.sent)}），修好后会在这里通知你。`
        : `未能发给值班维修工 ${text(worker.姓名)}（${deliveryNote(dispatched!.sent)}），工单待派单。`,
    ...(photo ? ['现场照片已附在工单上。'] : []),
  ].join('\n');
  return say(md, {
    ticket: publicTicket(t),
    ...(dispatched ? { worker_message: dispatched.sent, pending_reply: dispatched.wait } : {}),
    ops_notify: ops,
  });
}

/** 派单: give a ticket to a named worker (工号 or 姓名) or the one on duty. */
export async function assign(p: Record<string, unknown>, ctx: Ctx, call: CallSkill): Promise<Record<string, unknown>> {
  const id = ticketNumber(p.ticket);
  if (id === null) return needParam('ticket', '请给出工单号，例如 工单=T-3。');
  const t = await getTicket(call, id);
  if (!t) return needParam('ticket', `没有工单 ${ticketRef(id)}。`);
  if (t.状态 === '已完成') return say(`工单 ${ticketRef(id)} 已完成，无需派单。`, { ticket: publicTicket(t) });
  const who = text(p.worker);
  let worker: Row | null;
  if (who) {
    worker =
      (await query(call, WORKERS, [{ field: '工号', op: 'eq', value: who }], 1))[0] ??
      (await query(call, WORKERS, [{ field: '姓名', op: 'eq', value: who }], 1))[0] ??
      null;
    if (!worker) return needParam('worker', `维修工表里没有「${who}」，可用 /repair_ticket action=值班设置 登记。`);
  } else {
    worker = await dutyWorker(call);
    if (!worker) return needParam('worker', '当前没有值班维修工：可给出 维修工=<工号或姓名>，或用 action=值班设置 设置值班。');
  }
  const d = await dispatchTo(ctx, call, t, worker);
  const md =
    d.ticket.状态 === '处理中'
      ? `工单 ${ticketRef(id)} 已派给 ${text(worker.姓名)}（${deliveryNote(d.sent)}），正在等待其回复。`
      : `未能把工单 ${ticketRef(id)} 发给 ${text(worker.姓名)}（${deliveryNote(d.sent)}）。`;
  return say(md, {
    ticket: publicTicket(d.ticket),
    worker_message: d.sent,
    pending_reply: d.wait,
  });
}
