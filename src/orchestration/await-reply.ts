/**
 * `runtime_context.await_reply({to, skill, state, ref?, expires_in_s})` (docs/messaging.md):
 * the in-process function a skill uses to wait for a person's reply. Bound to the registering
 * skill's org, role and session; resolves to `{ok, id, expires_at}` or `{ok:false, error}`,
 * never throws.
 */
import type { ContextPart } from '../executor/skill-call.ts';
import type { MessagingServices } from './messaging.ts';
import { registerPendingReply, type AwaitReplyOrigin, type AwaitReplyRequest, type AwaitReplyResult } from './pending-replies.ts';

/** The `await_reply` function of a runtime context. */
export type AwaitReply = (req: AwaitReplyRequest) => Promise<AwaitReplyResult>;

/** Make the `await_reply` function of one skill call. */
export function makeAwaitReply(m: MessagingServices, origin: AwaitReplyOrigin, lang: 'zh-CN' | 'en' = 'zh-CN'): AwaitReply {
  return (req) =>
    registerPendingReply(m.db, (req ?? {}) as AwaitReplyRequest, origin, { now: m.now, skillExists: m.skillExists, lang }).catch(
      (err: unknown) => ({
        ok: false as const,
        error: err instanceof Error ? err.message : String(err),
      }),
    );
}

/**
 * The context part that gives every top-level call the gateway's `messaging` and its own
 * `await_reply`, bound to the call's org, role, session and skill (composed at wiring time).
 */
export function messagingPart(m: MessagingServices): ContextPart {
  return (frame) => ({
    messaging: m,
    await_reply: makeAwaitReply(
      m,
      { org_id: frame.orgId, role_id: frame.roleId, session_id: frame.sessionId, skill: frame.skill.name },
      frame.lang,
    ),
  });
}
