/**
 * Chats waiting out a platform's `retry_after` (docs/operations-delivery.md "Flood control"):
 * while the outbox holds a chat's next message until the advised time, non-essential traffic
 * to that chat — typing actions and progress notes, which go to the adapter directly — is
 * dropped instead of adding requests to a chat the platform is already throttling.
 *
 * In process memory (a restart forgets the holds; the queued row keeps its retry time anyway).
 * Bounded: the oldest entries are dropped past {@link HOLDS_MAX}.
 */
import type { ChannelAdapter, OutboundTarget } from '../channel/types.ts';
import { targetChatKey } from './store.ts';

/** Most chats held at once. */
export const HOLDS_MAX = 10_000;

/** What is dropped while a chat is held. */
export type SuppressedKind = 'typing' | 'progress';

/** The held chats of one outbox. */
export class ChatHolds {
  readonly #until = new Map<string, number>();

  /** Hold `chatKey` until `untilMs` (ms since the epoch); a later hold extends it. */
  hold(chatKey: string, untilMs: number): void {
    const prev = this.#until.get(chatKey) ?? 0;
    this.#until.delete(chatKey);
    this.#until.set(chatKey, Math.max(prev, untilMs));
    if (this.#until.size > HOLDS_MAX) this.#until.delete(this.#until.keys().next().value!);
  }

  /** The chat was delivered to again: no longer held. */
  release(chatKey: string): void {
    this.#until.delete(chatKey);
  }

  /** ms until `chatKey` may be written to again at `nowMs` (0 = not held). */
  remaining(chatKey: string, nowMs: number): number {
    const until = this.#until.get(chatKey);
    if (until === undefined) return 0;
    if (until <= nowMs) {
      this.#until.delete(chatKey);
      return 0;
    }
    return until - nowMs;
  }
}

/**
 * `adapter` with `typing` and `progress` dropped (resolved at once) for targets whose chat is
 * held; everything else passes through unchanged. `onSuppressed` is told each drop.
 */
export function quietAdapter<A extends ChannelAdapter>(
  adapter: A,
  held: (target: OutboundTarget) => boolean,
  onSuppressed?: (channel: string, kind: SuppressedKind) => void,
): A {
  return new Proxy(adapter, {
    get(obj, prop) {
      // The adapter itself is `this` for everything (adapters keep #private state).
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function') return value;
      if (prop !== 'typing' && prop !== 'progress') return (value as (...a: unknown[]) => unknown).bind(obj);
      const kind: SuppressedKind = prop;
      return (target: OutboundTarget, ...rest: unknown[]): Promise<void> => {
        if (held(target)) {
          onSuppressed?.(target.channel, kind);
          return Promise.resolve();
        }
        return (value as (...a: unknown[]) => Promise<void>).call(obj, target, ...rest);
      };
    },
  });
}

export { targetChatKey };
