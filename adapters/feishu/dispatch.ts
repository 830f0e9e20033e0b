/**
 * One verified schema-2.0 event → the core (shared by the webhook and the long-connection
 * transports): normalize, hand to `host.receive` (the inbox dedups by `feishu:event:<event_id>`
 * in PostgreSQL), answer. Bot/app messages are dropped here; unsupported message types get a
 * polite notice (best effort) and no turn; event types we do not handle are ignored.
 */
import type { AdapterHost } from '../../src/channel/index.ts';
import type { Logger } from '../../src/log/logger.ts';
import {
  normalizeCardAction,
  normalizeMessage,
  toStorable,
  type FeishuInboundOptions,
  type FeishuLookups,
  type Normalized,
} from './inbound.ts';
import type { CardActionEvent, EventHeader, MessageEvent } from './wire.ts';

/** What the dispatcher needs. */
export interface DispatchContext {
  account: string;
  look: FeishuLookups;
  log: Logger;
  /** Bot ids beyond the open_id and the `@_all` rule (docs/adapter-authoring.md "Feishu"). */
  inbound?: Omit<FeishuInboundOptions, 'unknownTag'>;
}

/** The polite answer to an unsupported message type, per language (zh-CN default). */
export const UNSUPPORTED_NOTICE: Record<'zh-CN' | 'en', string> = {
  'zh-CN': '暂不支持这种消息类型，请发送文字、图片或文件。',
  en: 'This message type is not supported yet; please send text, an image or a file.',
};

/** Outcome of one event (the transports turn it into their answer). */
export type DispatchOutcome =
  | {
      result: 'accepted' | 'duplicate' | 'ignored';
      normalized: Normalized /** Card callbacks: the toast body. */;
      reply?: Record<string, unknown>;
    }
  | { result: 'ignored'; normalized?: undefined; reply?: undefined };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The callback answer: a toast (card callback docs: `{toast:{type, content}}`, within 3 s). */
function toastFor(action: string): Record<string, unknown> {
  const content = action === 'cancel' ? '已取消 / Cancelled' : action === 'confirm' ? '已确认 / Confirmed' : '已收到 / Received';
  return { toast: { type: action === 'cancel' ? 'info' : 'success', content } };
}

/**
 * Normalize `event` of type `header.event_type` and give it to the core.
 * @throws only what `host.receive` throws (storage down: the platform must redeliver)
 */
export async function dispatchEvent(
  header: EventHeader,
  event: unknown,
  ctx: DispatchContext,
  host: AdapterHost,
): Promise<DispatchOutcome> {
  if (!isObject(event)) return { result: 'ignored' };
  let normalized: Normalized;
  try {
    if (header.event_type === 'im.message.receive_v1') {
      const unknownTag = (tag: string): void =>
        ctx.log.warn({ channel: 'feishu', account: ctx.account, event_id: header.event_id, tag }, 'unknown post element kept as text');
      normalized = await normalizeMessage(header, event as MessageEvent, ctx.account, ctx.look, { ...ctx.inbound, unknownTag });
    } else if (header.event_type === 'card.action.trigger')
      normalized = await normalizeCardAction(header, event as CardActionEvent, ctx.account, ctx.look);
    else return { result: 'ignored' };
  } catch (err) {
    // A malformed event the normalizer could not read: acknowledged and dropped (a redelivery would fail the same way).
    ctx.log.warn(
      { channel: 'feishu', account: ctx.account, event_id: header.event_id, err: (err as Error).message },
      'event could not be normalized',
    );
    return { result: 'ignored' };
  }

  if (normalized.outcome === 'ignored') return { result: 'ignored', normalized };
  if (normalized.outcome === 'unsupported') {
    ctx.log.info({ channel: 'feishu', account: ctx.account, type: normalized.unsupported_type }, 'unsupported message type');
    // Queued once per event by the core (outbox, keyed by the event's dedup key); a failure to
    // store it throws, so Feishu redelivers.
    if (normalized.message.addressed_to_bot)
      await host.notice(normalized.message, {
        kind: 'notice',
        text: UNSUPPORTED_NOTICE[normalized.message.lang ?? 'zh-CN'],
        format: 'plain',
      });
    return { result: 'ignored', normalized };
  }
  const result = await host.receive(toStorable(normalized.message));
  const reply = normalized.message.kind === 'callback' ? toastFor(normalized.message.callback?.action ?? '') : undefined;
  return { result, normalized, reply };
}
