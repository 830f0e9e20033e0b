/** Shared bits of the inbox tests: messages, a capturing logger, waiting for a condition. */
import type { InboundMessage } from '../../src/channel/types.ts';
import { createLogger, type Logger } from '../../src/log/logger.ts';

/** An inbound message of `chat` with a dedupe key derived from `key`. */
export function inbound(chat: string, key: string, text = `hello ${key}`, channel = 'telegram'): InboundMessage {
  return {
    channel,
    account: 'default',
    dedupe_key: `${channel}:update:${key}`,
    kind: 'message',
    message_id: key,
    chat: { id: chat, type: 'direct' },
    raw_input: text,
    attachments: [],
    actor: { id: 'u1', display_name: 'Ann' },
    mentioned_bot: false,
    addressed_to_bot: true,
    reply_to: null,
  };
}

/** A logger whose JSON lines are kept in `lines`. */
export function captureLog(): { log: Logger; lines: () => Record<string, unknown>[] } {
  const raw: string[] = [];
  const log = createLogger({ level: 'debug', destination: { write: (s: string) => void raw.push(s) }, pretty: false });
  return {
    log,
    lines: () =>
      raw
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** Resolve once `check()` is true; reject after `limitMs` (a guard against hangs, not a timing assertion). */
export async function until(check: () => boolean | Promise<boolean>, what: string, limitMs = 20_000): Promise<void> {
  const end = Date.now() + limitMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A promise with its resolve function. */
export function latch<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
