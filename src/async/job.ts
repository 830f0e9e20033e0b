/**
 * The async job (R-ASYNC-01..07): which calls go to the
 * background and what is stored in the pg-boss job so a restarted gateway can still run it.
 */
import type { OutboundTarget } from '../channel/types.ts';
import type { RunSkillRequest } from '../executor/skill-call.ts';
import type { Registry } from '../registry/discover.ts';

/** The pg-boss queue of async skill runs. */
export const ASYNC_QUEUE = 'skillgate-async-skill';

/** Channels that stay synchronous (R-ASYNC-04; A-56: web_admin is treated like web). */
export const SYNC_CHANNELS: ReadonlySet<string> = new Set(['web', 'web_admin']);

/** Where the background result goes: the chat the call came from. */
export interface AsyncOrigin {
  target: OutboundTarget;
  /** The platform message id the result answers (best effort; null when none). */
  reply_to?: string | null;
  /** The inbox event of the turn (recorded as the outbox origin). */
  event_id: string;
}

/**
 * The stored job: JSON only. The turn's `abortSignal`, `request` and `clock` are not kept —
 * background runs get none of them (R-ASYNC-05, R-PCTX-08/09).
 */
export interface AsyncJobData {
  v: 1;
  /** The registered skill name (for texts and logs). */
  skill: string;
  /** The tool name as called (`skill` or `skill__sub`). */
  tool: string;
  input: Record<string, unknown>;
  given: Record<string, unknown>;
  defaults: RunSkillRequest['defaults'];
  lang: 'zh-CN' | 'en';
  origin: AsyncOrigin;
}

/**
 * The channel of a call: `given.channel` wins over the defaults, as in `runSkill`.
 */
export function channelOf(req: Pick<RunSkillRequest, 'given' | 'defaults'>): string {
  const g = req.given?.channel;
  return typeof g === 'string' && g ? g : req.defaults.channel;
}

/**
 * The skill name when this call is to run in the background, else null: a chat-line call of
 * a skill whose front matter says `async: true` (R-ASYNC-01), on a channel that is not web or
 * web_admin (R-ASYNC-02/04). `call_skill`, chains and schedules never come here (R-ASYNC-09).
 */
export function asyncSkillOf(registry: Registry, req: RunSkillRequest): string | null {
  if (req.line !== 'chat') return null;
  if (SYNC_CHANNELS.has(channelOf(req))) return null;
  const record = typeof req.skill === 'string' ? registry.resolveTool(req.skill)?.record : req.skill;
  if (!record || record.status === 'broken' || !record.frontmatter.async) return null;
  return record.name;
}

/** The JSON-safe job of a call (a deep copy; functions and signals dropped). */
export function jobDataOf(req: RunSkillRequest, skill: string, origin: AsyncOrigin): AsyncJobData {
  const json = <T>(v: T): T => JSON.parse(JSON.stringify(v ?? null)) as T;
  return {
    v: 1,
    skill,
    tool: typeof req.skill === 'string' ? req.skill : req.skill.name,
    input: json(req.input ?? {}),
    given: json(req.given ?? {}),
    defaults: json(req.defaults),
    lang: req.lang === 'en' ? 'en' : 'zh-CN',
    origin: json({ target: origin.target, reply_to: origin.reply_to ?? null, event_id: origin.event_id }),
  };
}
