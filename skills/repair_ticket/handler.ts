/**
 * The `repair_ticket` skill: the repair-ticket flow of the README walkthrough — a reporter
 * reports a fault with a photo, ops are notified, the on-duty worker gets the ticket and a
 * pending reply; the worker's reply (「完成了，费用 1200 元」 + photo) completes the ticket and
 * the reporter hears back on their own channel.
 *
 * Action skill rules (R-ACT-01..05): canonical Chinese actions with aliases,
 * `action_note` on every normalisation, no action → `need_param: "action"` with the list, no
 * default write action. Tables through `call_skill('datatable')`; messages through
 * `notify` / `send_message` / `await_reply` (docs/messaging.md). Recipients come from the
 * ticket row, never from `actor_*` (R-MSG-07). User-facing text zh-CN.
 */
import { ACTIONS, ACTION_HELP, normalizeKeys, resolveAction, type RepairAction } from './lib.ts';
import { TableError, ensureTables, type CallSkill } from './tables.ts';
import type { Ctx } from './context.ts';
import { assign, report } from './flow-report.ts';
import { complete, setCost } from './flow-complete.ts';
import { listTickets, setDuty } from './flow-admin.ts';

/** One action's implementation. */
export type ActionFn = (
  p: Record<string, unknown>,
  ctx: Ctx,
  call: CallSkill,
  input: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

const DISPATCH: Readonly<Record<RepairAction, ActionFn>> = {
  报修: report,
  查询: listTickets,
  派单: assign,
  完成回复: complete,
  登记费用: setCost,
  值班设置: setDuty,
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function actionList(): string {
  return ACTIONS.map((a) => `${a}（${ACTION_HELP[a]}）`).join('；');
}

/** The `need_param: action` refusal (R-ACT-05). */
function needAction(received: string | undefined, note?: string): Record<string, unknown> {
  const msg = received === undefined ? `请指定操作 action：${actionList()}` : `不支持的操作「${received}」。可选：${actionList()}`;
  return {
    success: false,
    error:
      received === undefined
        ? `action is required; supported: ${ACTIONS.join(', ')}`
        : `unknown action "${received}"; supported: ${ACTIONS.join(', ')}`,
    error_type: 'recoverable',
    need_param: 'action',
    actions: [...ACTIONS],
    user_message: msg,
    ...(note ? { action_note: note } : {}),
  };
}

/**
 * Entry point. `input_data.action` names the action; the continuation of a pending reply
 * (`{reply, state, ref}`) carries it in `state.action`, written there by 报修/派单.
 */
export async function execute(
  input_data: Record<string, unknown>,
  runtime_context: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const ctx = runtime_context as Ctx;
  const state = isRecord(input_data.state) ? input_data.state : {};
  const rawAction =
    typeof input_data.action === 'string' && input_data.action.trim()
      ? input_data.action
      : typeof state.action === 'string'
        ? state.action
        : undefined;
  const { params, notes } = normalizeKeys(input_data);
  if (rawAction === undefined) return needAction(undefined, notes.join('; ') || undefined);
  const action = resolveAction(rawAction);
  if (action && action !== rawAction.trim()) notes.unshift(`${rawAction.trim()} → ${action}`);
  const note = notes.join('; ') || undefined;
  if (!action) return needAction(rawAction, note);
  const call = ctx.call_skill;
  if (typeof call !== 'function') {
    return {
      success: false,
      error: 'call_skill is not available',
      error_type: 'config',
      non_retriable: true,
      user_message: '此处无法使用报修工单（需要在网关内运行）。',
      ...(note ? { action_note: note } : {}),
    };
  }
  let out: Record<string, unknown>;
  try {
    await ensureTables(call);
    out = await DISPATCH[action](params, ctx, call, input_data);
  } catch (err) {
    if (!(err instanceof TableError)) throw err;
    const e = err.envelope;
    const denied = e.permission_denied === true || /owner|admin/.test(String(e.error ?? ''));
    out = {
      success: false,
      error: String(e.error ?? err.message),
      error_type: String(e.error_type ?? 'recoverable'),
      user_message: denied
        ? `工单表还没有建好，需要团队 owner/admin 先使用一次本技能（例如 /repair_ticket action=查询）。`
        : `数据表操作失败：${err.message}`,
    };
  }
  return note ? { ...out, action_note: note } : out;
}
