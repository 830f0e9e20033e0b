/**
 * What a delivered text is, for the ledger: the soak skills' answers name their tag
 * (test/fixtures/soak/), the async acknowledgement names the skill, the restart notice
 * (docs/recovery.md) asks to run an interrupted call again.
 */

/** The phases of the soak skills' answers. */
export const PHASES = ['ok', 'file', 'ask', 'answered', 'confirm-ask', 'confirmed', 'confirm-refused', 'async', 'notified'] as const;
export type Phase = (typeof PHASES)[number] | 'async-ack';

/** A parsed delivery. */
export type ReplyKind =
  | { kind: 'answer'; tag: string; phase: Phase }
  /** 「soak_async」已在后台开始执行 — names no tag; it answers the chat's open async call. */
  | { kind: 'async-ack' }
  /** The restart notice: an interrupted non-idempotent call, offered again. */
  | { kind: 'restart-notice' }
  | { kind: 'other' };

const ANSWER = new RegExp(`\\bsoak (${PHASES.join('|')}) (c\\d+n\\d+)\\b`);

/** Classify one delivered text. */
export function parseReply(text: string): ReplyKind {
  if (/网关在执行「[^」]+」时重启了|restarted while/.test(text)) return { kind: 'restart-notice' };
  const m = ANSWER.exec(text);
  if (m) return { kind: 'answer', phase: m[1] as Phase, tag: m[2]! };
  if (/「soak\\?_async」已在后台开始执行|soak\\?_async.*started in the background/.test(text)) return { kind: 'async-ack' };
  return { kind: 'other' };
}

/** The ledger key of an answer. */
export function replyKey(tag: string, phase: Phase): string {
  return `${tag}:${phase}`;
}
