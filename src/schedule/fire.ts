/**
 * One schedule run: run the skill or saved chain through the normal
 * pipeline on the `schedule` line with `chat_mode = false` (SCHEDULE_POLICY, D-05), then deliver the result to
 * the schedule's target by calling the built-in skill `notify` (`notify:<alias|url>`) or
 * `send_message` (`<channel>[@<account>]:<id>`) by name — the same path any skill uses.
 */
import { isFailure } from '../envelope/normalize.ts';
import { withChainRegistry } from '../chain/services.ts';
import { runChainDocument, type ChainServices } from '../chain/skill.ts';
import { getChain } from '../chain/store.ts';
import { SCHEDULE_POLICY } from '../chain/policy.ts';
import { NO_ACTOR, type CallParties } from '../executor/request.ts';
import type { StoredSchedule } from './store.ts';

/** What a run produced. */
export interface FireOutcome {
  ok: boolean;
  /** The skill's envelope or the chain's return object. */
  result: Record<string, unknown>;
  /** The delivery skill's envelope; null when the schedule delivers nowhere. */
  delivery: Record<string, unknown> | null;
}

/** Longest message text delivered (the rest is cut with an ellipsis). */
export const MAX_DELIVERY_CHARS = 3500;

function textOf(output: unknown): string {
  if (typeof output === 'string') return output;
  if (typeof output === 'object' && output !== null) {
    const o = output as Record<string, unknown>;
    for (const k of ['user_message', 'display_md', 'message']) if (typeof o[k] === 'string' && o[k]) return o[k] as string;
  }
  return JSON.stringify(output ?? null, null, 2);
}

function cut(text: string): string {
  return text.length > MAX_DELIVERY_CHARS ? `${text.slice(0, MAX_DELIVERY_CHARS)}…` : text;
}

/** The delivery text of a run (zh-CN). */
export function deliveryText(
  s: Pick<StoredSchedule, 'name' | 'kind'>,
  ok: boolean,
  result: Record<string, unknown>,
): { title: string; message: string } {
  const title = `定时任务「${s.name}」`;
  if (!ok) return { title, message: cut(`执行失败：${String(result.error ?? result.user_message ?? '未知错误')}`) };
  return { title, message: cut(textOf(s.kind === 'chain' ? result.last : result)) };
}

/** How a schedule target is delivered: `notify` with a target, or `send_message` with `to`. */
export function deliveryCall(
  deliverTo: string,
  text: { title: string; message: string },
): { skill: string; input: Record<string, unknown> } | null {
  const to = deliverTo.trim();
  if (!to) return null;
  if (to.startsWith('notify:'))
    return { skill: 'notify', input: { target: to.slice('notify:'.length), title: text.title, message: text.message } };
  return { skill: 'send_message', input: { to, message: `${text.title}\n${text.message}` } };
}

/**
 * The run function of the product scheduler.
 * @param orgFor the org of a role (config file), e.g. `(r) => config.roles.find(…)?.org_id`.
 */
export function pipelineFire(services: ChainServices, orgFor: (roleId: string) => string): (s: StoredSchedule) => Promise<FireOutcome> {
  return async (s) => {
    const svc = await withChainRegistry(services);
    const parties: CallParties = {
      actor: NO_ACTOR,
      origin: {
        roleId: s.role_id,
        orgId: orgFor(s.role_id),
        channel: 'schedule',
        rawInput: '',
        chatMode: SCHEDULE_POLICY.chatMode,
        allowSql: true,
        isAdmin: false,
      },
      session: { open: { id: `schedule:${s.name}` } },
    };
    let ok: boolean;
    let result: Record<string, unknown>;
    if (s.kind === 'chain') {
      const chain = await getChain(svc.db, s.target);
      if (!chain) {
        ok = false;
        result = { success: false, error: `no saved chain named "${s.target}"` };
      } else {
        const r = await runChainDocument(svc, { doc: chain.document, input: s.input, ...parties, line: 'schedule' });
        ok = r.ok;
        result = { ...r };
      }
    } else {
      result = await svc.call({
        skill: s.target,
        input: s.input,
        ...parties,
        line: 'schedule',
      });
      ok = !isFailure(result);
    }
    const call = deliveryCall(s.deliver_to, deliveryText(s, ok, result));
    const delivery = call ? await svc.call({ skill: call.skill, input: call.input, ...parties, line: 'schedule' }) : null;
    return { ok, result, delivery };
  };
}
