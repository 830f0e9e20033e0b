/**
 * Long-connection mode (`FEISHU_MODE=ws`): the SDK's `WSClient` (library-facts §2: endpoint
 * discovery `POST <domain>/callback/ws/endpoint`, protobuf frames over wss; events arrive in
 * plaintext, already authenticated by the connection) with an `EventDispatcher` whose handlers
 * hand the SDK's flattened event data to the same {@link dispatchEvent} as the webhook. A card
 * callback's handler returns the toast answer.
 */
import * as lark from '@larksuiteoapi/node-sdk';
import type { AdapterHost } from '../../src/channel/index.ts';
import { sdkLogger } from './api.ts';
import { dispatchEvent, type DispatchContext } from './dispatch.ts';
import type { EventHeader } from './wire.ts';

/** Header keys the SDK spreads into the handler data next to the event's own keys. */
const HEADER_KEYS = ['event_id', 'event_type', 'create_time', 'token', 'app_id', 'tenant_key'] as const;

/**
 * Split the SDK's flattened handler data (`{schema, ...header, ...event}`) back into header and
 * event. `eventType` is used when the data lacks it.
 */
export function unflatten(data: unknown, eventType: string): { header: EventHeader; event: Record<string, unknown> } {
  const d = data && typeof data === 'object' ? (data as Record<string, unknown>) : {};
  const header: Record<string, string> = {};
  const event: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) {
    if ((HEADER_KEYS as readonly string[]).includes(k)) {
      if (typeof v === 'string') header[k] = v;
    } else if (k !== 'schema') event[k] = v;
  }
  return { header: { ...header, event_id: header.event_id ?? '', event_type: header.event_type ?? eventType }, event };
}

/** Settings of {@link startWsTransport}. */
export interface WsTransportOptions extends DispatchContext {
  appId: string;
  appSecret: string;
  domain: string;
}

/** A running long connection. */
export interface WsTransport {
  close(): void;
}

/** Handlers of the dispatcher (exported for tests: the mapping without a socket). */
export function wsHandlers(
  ctx: DispatchContext,
  host: AdapterHost,
): Record<'im.message.receive_v1' | 'card.action.trigger', (data: unknown) => Promise<unknown>> {
  const handle = async (data: unknown, type: string): Promise<unknown> => {
    const { header, event } = unflatten(data, type);
    if (header.event_id === '') return undefined;
    const out = await dispatchEvent(header, event, ctx, host);
    return out.reply;
  };
  return {
    'im.message.receive_v1': (data) => handle(data, 'im.message.receive_v1'),
    'card.action.trigger': (data) => handle(data, 'card.action.trigger'),
  };
}

/** Connect and start receiving. Resolves once the SDK started (it reconnects by itself). */
export async function startWsTransport(opts: WsTransportOptions, host: AdapterHost): Promise<WsTransport> {
  // The SDK silently does nothing for an app id it does not recognise; say so
  // (docs/configuration.md start-up report).
  if (!/^cli_[0-9a-fA-F]{16}$/.test(opts.appId)) {
    opts.log.error(
      { channel: 'feishu', account: opts.account },
      'FEISHU_APP_ID is not of the form cli_<16 hex>: the long connection cannot start',
    );
  }
  const dispatcher = new lark.EventDispatcher({ loggerLevel: lark.LoggerLevel.error });
  dispatcher.register<Record<string, (data: unknown) => Promise<unknown>>>(wsHandlers(opts, host));
  const client = new lark.WSClient({
    appId: opts.appId,
    appSecret: opts.appSecret,
    domain: opts.domain,
    logger: sdkLogger(opts.log),
    loggerLevel: lark.LoggerLevel.error,
    autoReconnect: true,
    onReady: () => opts.log.info({ channel: 'feishu', account: opts.account }, 'feishu long connection ready'),
    onError: (err) => opts.log.error({ channel: 'feishu', account: opts.account, err: err.message }, 'feishu long connection failed'),
    onReconnecting: () => opts.log.warn({ channel: 'feishu', account: opts.account }, 'feishu long connection lost; reconnecting'),
  });
  await client.start({ eventDispatcher: dispatcher });
  return { close: () => client.close({ force: true }) };
}
