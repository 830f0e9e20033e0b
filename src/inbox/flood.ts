/**
 * Per-sender flood control (docs/operations-delivery.md "Per-sender flood control"): more
 * than `perMinute` messages from one person (channel, account, sender id) within a minute are
 * stored `refused` — so a redelivery stays a duplicate — and never reach a turn; the first
 * refusal of a minute gets one polite notice. Button presses and edits are not counted.
 */
import type { InboundMessage, Lang } from '../channel/types.ts';

/** The flood window, ms. */
export const FLOOD_WINDOW_MS = 60_000;

/** Default limit (`SKILLGATE_FLOOD_PER_MINUTE`). */
export const FLOOD_DEFAULT_PER_MINUTE = 60;

/** Flood control of one inbox. */
export interface FloodControl {
  /** Messages per sender per minute accepted (0 = no limit). */
  perMinute: number;
  /**
   * Queue the notice answering `msg` (the first refused message of its sender's minute).
   * @throws when it could not be queued (the event is then not acknowledged).
   */
  notify(msg: InboundMessage, text: string): Promise<void>;
}

/**
 * `SKILLGATE_FLOOD_PER_MINUTE` (a whole number ≥ 0; 0 = off; default {@link FLOOD_DEFAULT_PER_MINUTE}).
 * @throws Error naming the variable when it is not a whole number ≥ 0
 */
export function floodLimitFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SKILLGATE_FLOOD_PER_MINUTE?.trim();
  if (raw === undefined || raw === '') return FLOOD_DEFAULT_PER_MINUTE;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`SKILLGATE_FLOOD_PER_MINUTE must be a whole number ≥ 0 (0 = no limit), got "${raw}"`);
  return n;
}

/** The polite notice in the sender's language. */
export function floodNotice(lang: Lang | undefined, perMinute: number): string {
  return lang === 'en'
    ? `You are sending messages faster than I can take them (at most ${perMinute} a minute). Please wait a moment; the messages of the last minute over that were not processed.`
    : `消息发送得太频繁了（每分钟最多 ${perMinute} 条），请稍等片刻再发。超出的消息没有被处理。`;
}

/** True when flood control applies to `msg` (a message with a sender). */
export function floodCounted(msg: InboundMessage): boolean {
  return msg.kind === 'message' && typeof msg.actor?.id === 'string' && msg.actor.id !== '';
}
