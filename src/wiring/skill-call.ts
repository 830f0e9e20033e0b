/**
 * The skill call as the product runs it (docs/executors.md "The skill-call module"): the
 * executor's {@link createSkillCall} with `call_skill`, messaging / `await_reply` and the
 * authoring services composed into its contexts, saved chains dispatched around it, and
 * every call audited around that. Built once per process from fixed parts.
 */
import { audited } from '../audit/hook.ts';
import type { AuditSink } from '../audit/sink.ts';
import { withChains } from '../chain/skill.ts';
import { createSkillCall, type ContextPart, type SkillCall, type SkillServices, type RunSkillRequest } from '../executor/skill-call.ts';
import type { Envelope } from '../envelope/types.ts';
import { authoringPart, authoringServicesFor } from '../lifecycle/authoring.ts';
import type { ReloadReport, SkillLifecycle } from '../lifecycle/types.ts';
import { messagingPart } from '../orchestration/await-reply.ts';
import { callSkillPart } from '../orchestration/call-skill.ts';
import type { MessagingServices } from '../orchestration/messaging.ts';
import { liveRegistry } from '../registry/live.ts';

/** What is composed around and into the skill call; every part optional. */
export interface SkillCallWiring {
  /** Outbox and channels for notify / send_message / await_reply; absent outside a gateway. */
  messaging?: MessagingServices;
  /** The live skill set's reload, for create_skill / edit_skill (absent: files only). */
  reload?: (reason: string) => Promise<ReloadReport | void>;
  /** Group-commits audit rows (src/audit/sink.ts); absent → each row written at once. */
  auditSink?: AuditSink;
}

/**
 * The product's skill call over `services`: audit ∘ chains ∘ (skill call with call_skill,
 * messaging, await_reply and authoring in its contexts). A chain's steps are audited calls of
 * the same inner skill call (a step naming a chain is refused by the chain runner).
 */
export function wireSkillCall(services: SkillServices, wiring: SkillCallWiring = {}): SkillCall {
  const parts: ContextPart[] = [callSkillPart(services)];
  if (wiring.messaging) parts.push(messagingPart(wiring.messaging));
  parts.push(
    authoringPart(authoringServicesFor({ dataDir: services.settings.dataDir, registry: () => services.registry, reload: wiring.reload })),
  );
  const inner = createSkillCall({ ...services, contextParts: parts });
  const auditDeps = {
    db: services.db,
    registry: services.registry,
    secretKey: services.secretKey,
    log: services.log,
    sink: wiring.auditSink,
  };
  const steps = audited(inner, auditDeps);
  return audited(withChains(inner, { ...services, call: steps }), auditDeps);
}

/**
 * Services as a one-shot caller (a tool, a test) holds them: the fixed parts plus what it
 * composes, read at each call of {@link runSkill}.
 */
export interface OneShotServices extends SkillServices {
  readonly messaging?: MessagingServices;
  readonly lifecycle?: Pick<SkillLifecycle, 'reload' | 'skillsFor'>;
}

/**
 * One call through {@link wireSkillCall} of `services` as they are now (audit rows written at
 * once): for one-shot tools and tests; a long-lived process wires its call once instead.
 */
export function runSkill(services: OneShotServices, req: RunSkillRequest): Promise<Envelope> {
  const lifecycle = services.lifecycle;
  return wireSkillCall(
    // The registry is read from `services` at each use (a test may swap it during the call).
    { ...services, registry: liveRegistry(() => services.registry), skillsFor: services.skillsFor ?? lifecycle?.skillsFor },
    { messaging: services.messaging, reload: lifecycle ? (reason) => lifecycle.reload(reason) : undefined },
  )(req);
}

/** `services` with `call` = {@link runSkill} over them (chain entry points need one). */
export function withCall<S extends OneShotServices>(services: S): S & { readonly call: SkillCall } {
  const bound = { ...services } as S;
  return { ...bound, call: (req: RunSkillRequest) => runSkill(bound, req) };
}
