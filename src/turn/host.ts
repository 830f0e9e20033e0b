/**
 * The core's side of the adapter boundary (`AdapterHost`, src/channel/types.ts): every
 * adapter hands inbound events here. Stops are acted on at once (they must reach a turn that
 * is running, not wait behind it in the chat's queue); everything else is stored in the inbox
 * before the adapter acknowledges the platform.
 */
import type { AdapterHost, InboundMessage } from '../channel/types.ts';
import { eventNoticeItem } from '../outbox/event-notice.ts';
import type { Logger } from '../log/logger.ts';
import type { Db } from '../store/db.ts';
import { notice } from './notices.ts';
import { parseCommand } from './planners/command.ts';
import type { RunningTurns } from './running.ts';
import { chatKeyOf } from './session-key.ts';
import type { ReplySink } from './turn.ts';

/** What {@link createCoreHost} needs. */
export interface CoreHostDeps {
  db: Db;
  log: Logger;
  inbox: { receive(msg: InboundMessage): Promise<'accepted' | 'duplicate'> };
  running: RunningTurns;
  outbox: ReplySink;
  /** Observes every inbound event's result (metrics). */
  onInbound?(channel: string, result: 'accepted' | 'duplicate' | 'ignored'): void;
}

/** True when a turn of `chatKey` is being processed by any replica (inbox lease held). */
async function runningAnywhere(db: Db, chatKey: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM skillgate.inbox_events WHERE chat_key = $1 AND status = 'processing' LIMIT 1`,
    [chatKey],
  );
  return rows.length > 0;
}

/**
 * Build the host. `receive`:
 * - not addressed to the bot (a group message without mention) → `ignored`, nothing stored;
 * - 「停止」 / `/stop` (CONTRACTS.md §8) → the chat's running turn is aborted here or, through
 *   NOTIFY, on the replica running it; with nothing running the user is told so; `accepted`;
 * - anything else → stored in the inbox (`accepted` or `duplicate`).
 * @throws when the inbox cannot store the event (the adapter answers the platform with a
 *   retryable error so it redelivers).
 *
 * `notice` queues an adapter's answer to an event the core does not process (unsupported
 * type, file too large) in the outbox, once per event ({@link eventNoticeItem}).
 */
export function createCoreHost(deps: CoreHostDeps): AdapterHost {
  return {
    async receive(msg) {
      if (!msg.addressed_to_bot && msg.kind !== 'callback') {
        deps.onInbound?.(msg.channel, 'ignored');
        return 'ignored';
      }
      const text = (msg.input_without_bot_mention ?? msg.raw_input ?? '').trim();
      if (msg.kind === 'message' && msg.attachments.length === 0 && parseCommand(text).kind === 'stop') {
        const chatKey = chatKeyOf(msg);
        const local = await deps.running.stop(deps.db, chatKey);
        if (!local && !(deps.db.engine === 'server' && (await runningAnywhere(deps.db, chatKey)))) {
          const lang = msg.lang === 'en' ? 'en' : 'zh-CN';
          await deps.outbox.enqueue(deps.db, [
            {
              target: { channel: msg.channel, account: msg.account, chat_id: msg.chat.id, thread_id: msg.chat.thread_id ?? null, chat_type: msg.chat.type, ...(msg.reply_route ? { route: msg.reply_route } : {}) },
              message: { kind: 'notice', text: notice(lang, 'nothing_running'), format: 'plain', reply_to: msg.message_id, final: true },
              idempotency_key: `stop:${msg.channel}:${msg.account}:${msg.dedupe_key}`,
            },
          ]);
        }
        deps.log.info({ channel: msg.channel, chat: chatKey, stopped_here: local }, 'stop requested');
        deps.onInbound?.(msg.channel, 'accepted');
        return 'accepted';
      }
      const result = await deps.inbox.receive(msg);
      deps.onInbound?.(msg.channel, result);
      return result;
    },
    async notice(event, message) {
      await deps.outbox.enqueue(deps.db, [eventNoticeItem(event, message)]);
    },
  };
}
