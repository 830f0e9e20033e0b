/**
 * The core's side of the adapter boundary (`AdapterHost`, src/channel/types.ts): every adapter
 * hands inbound events here. The message's text is parsed once (`parse`, given at wiring
 * time); a stop is acted on at once — it must reach a turn that is running, not wait behind it
 * in the chat's queue — and everything else is stored in the inbox with its parsed value
 * before the adapter acknowledges the platform. This module knows nothing of turns: stopping
 * and the stop notice are functions it is given.
 */
import { chatKeyOf } from '../channel/chat-key.ts';
import type { AdapterHost, InboundMessage, OutboundMessage, OutboundTarget } from '../channel/types.ts';
import type { Logger } from '../log/logger.ts';
import { eventNoticeItem } from '../outbox/event-notice.ts';
import type { Queryable } from '../store/db.ts';
import type { Inbox } from './types.ts';

/** How long a stop event is remembered for its repeats, ms, and how many are kept. */
const STOP_MEMORY_MS = 10 * 60_000;
const STOP_MEMORY_MAX = 10_000;

/** Where notices go (the outbox's enqueue). */
export interface NoticeSink {
  enqueue(q: Queryable, items: { target: OutboundTarget; message: OutboundMessage; idempotency_key?: string }[]): Promise<string[]>;
}

/** What {@link createIntake} needs. */
export interface IntakeDeps<P> {
  db: Queryable;
  log: Logger;
  inbox: Pick<Inbox<P>, 'receive' | 'processing'>;
  outbox: NoticeSink;
  /** Parse a message's text (once per message; the value travels with the event). */
  parse(msg: InboundMessage): P;
  /** True when the parsed value is a stop request (「停止」, `/stop`). */
  isStop(parsed: P): boolean;
  /** Stop the chat's running turn in this process (or, through NOTIFY, on its replica). @returns true when one ran here */
  stop(chatKey: string): Promise<boolean>;
  /** Whether other processes may run turns (a server database): then a turn elsewhere is looked for. */
  replicas: boolean;
  /** The text told when nothing runs, in the sender's language. */
  nothingRunning(lang: 'zh-CN' | 'en'): string;
  /** Observes every inbound event's result (metrics). */
  onInbound?(channel: string, result: 'accepted' | 'duplicate' | 'ignored'): void;
}

/**
 * Build the host. `receive`:
 * - not addressed to the bot (a group message without mention) → `ignored`, nothing stored;
 * - a stop (a message without attachments whose text parses to stop) → the chat's running turn
 *   is stopped; with nothing running anywhere the user is told so; `accepted`;
 * - anything else → stored in the inbox with its parsed value (`accepted` or `duplicate`).
 * @throws when the inbox cannot store the event (the adapter answers the platform with a
 *   retryable error so it redelivers).
 *
 * `notice` queues an adapter's answer to an event the core does not process (unsupported
 * type, file too large) in the outbox, once per event ({@link eventNoticeItem}).
 */
export function createIntake<P>(deps: IntakeDeps<P>): AdapterHost {
  /** Stops acted on lately, by event identity → when (ms): a redelivered or resent stop is a duplicate. */
  const recentStops = new Map<string, number>();
  /** True when this stop event was acted on within {@link STOP_MEMORY_MS}; remembers it otherwise. */
  const seenStop = (msg: InboundMessage): boolean => {
    const id = `${msg.channel}\u0000${msg.account}\u0000${msg.dedupe_key}`;
    const now = Date.now();
    const at = recentStops.get(id);
    if (at !== undefined && now - at < STOP_MEMORY_MS) return true;
    recentStops.delete(id);
    recentStops.set(id, now);
    if (recentStops.size > STOP_MEMORY_MAX) recentStops.delete(recentStops.keys().next().value!);
    return false;
  };
  return {
    async receive(msg) {
      if (!msg.addressed_to_bot && msg.kind !== 'callback') {
        deps.onInbound?.(msg.channel, 'ignored');
        return 'ignored';
      }
      const parsed = deps.parse(msg);
      if (msg.kind === 'message' && msg.attachments.length === 0 && deps.isStop(parsed)) {
        // Not stored in the inbox: its repeats (a platform's redelivery, a client's resend) are
        // recognised here, before the first copy's stop has finished.
        if (seenStop(msg)) {
          deps.onInbound?.(msg.channel, 'duplicate');
          return 'duplicate';
        }
        const chatKey = chatKeyOf(msg);
        const local = await deps.stop(chatKey);
        if (!local && !(deps.replicas && (await deps.inbox.processing(chatKey)))) {
          const lang = msg.lang === 'en' ? 'en' : 'zh-CN';
          await deps.outbox.enqueue(deps.db, [
            {
              target: {
                channel: msg.channel,
                account: msg.account,
                chat_id: msg.chat.id,
                thread_id: msg.chat.thread_id ?? null,
                chat_type: msg.chat.type,
                ...(msg.reply_route ? { route: msg.reply_route } : {}),
              },
              message: { kind: 'notice', text: deps.nothingRunning(lang), format: 'plain', reply_to: msg.message_id, final: true },
              idempotency_key: `stop:${msg.channel}:${msg.account}:${msg.dedupe_key}`,
            },
          ]);
        }
        deps.log.info({ channel: msg.channel, chat: chatKey, stopped_here: local }, 'stop requested');
        deps.onInbound?.(msg.channel, 'accepted');
        return 'accepted';
      }
      const result = await deps.inbox.receive(msg, parsed);
      deps.onInbound?.(msg.channel, result);
      return result;
    },
    async notice(event, message) {
      await deps.outbox.enqueue(deps.db, [eventNoticeItem(event, message)]);
    },
  };
}
