/**
 * The built-in `await_reply` skill (docs/messaging.md): registers a pending reply for skills
 * that reach it through call_skill (in-process skills may use `runtime_context.await_reply`).
 */
import { messagingOf } from '../../src/orchestration/messaging.ts';
import { registerPendingReply, type AwaitReplyRequest } from '../../src/orchestration/pending-replies.ts';

/**
 * Register the pending reply `input_data` (`{to, skill, state?, ref?, expires_in_s?}`).
 * @returns `{ok: true, id, expires_at, to, ref}`; `{ok: false, error, error_type: "recoverable",
 *   need_param}` when a required field (`to`, `skill`, schema.json) is missing; `config` off the gateway
 */
export async function execute(input_data: Record<string, unknown>, runtime_context: Record<string, unknown>) {
  const lang = input_data.lang === 'en' ? 'en' : 'zh-CN';
  for (const field of ['to', 'skill'] as const) {
    const v = input_data[field];
    if (typeof v === 'string' && v.trim() !== '') continue;
    const error =
      lang === 'en'
        ? `${field} is required`
        : field === 'to'
          ? '缺少 to：等谁回复（<渠道>[@<账号>]:<ID>）'
          : '缺少 skill：收到回复后调用的技能名';
    return { ok: false, error, error_type: 'recoverable', need_param: field };
  }
  const m = messagingOf(runtime_context);
  if (!m) {
    const error = lang === 'en' ? 'pending replies are not available here (no gateway)' : '此处无法登记等待回复（没有运行中的网关）';
    return { ok: false, error, error_type: 'config', non_retriable: true };
  }
  const origin = {
    org_id: String(runtime_context.org_id ?? ''),
    role_id: String(runtime_context.role_id ?? ''),
    session_id: String(runtime_context.session_id ?? ''),
    skill: 'await_reply',
  };
  const r = await registerPendingReply(m.db, input_data as unknown as AwaitReplyRequest, origin, {
    now: m.now,
    skillExists: m.skillExists,
    lang,
  });
  return r.ok ? r : { ...r, error_type: 'recoverable' };
}
