/**
 * The gateway connection (discord.js `Client`): intents Guilds, GuildMessages, DirectMessages
 * (+ MessageContent unless mention-only) and the Channel partial; every dispatch frame goes to
 * the adapter's `processDispatch` from the client's `raw` event (the plain mapping in
 * inbound.ts), one at a time in arrival order. A dispatch the inbox could not store is tried
 * again before any later one is handed on, so a chat's events are stored in the platform's
 * order (docs/operations-delivery.md "Resuming a long connection"). What the bot may read is
 * stated at start-up: READY's application flags tell whether MESSAGE_CONTENT is enabled; a 4014
 * close ("disallowed intents") is reported with the fix. With a {@link SessionKeeper} the session is resumed across
 * restarts (session.ts).
 */
import { Client, Events, Partials } from 'discord.js';
import { InboundRefusedError, LeaseLostError } from '../../src/channel/index.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { SessionKeeper } from './session.ts';
import { APP_FLAG_MESSAGE_CONTENT, APP_FLAG_MESSAGE_CONTENT_LIMITED, CLOSE_DISALLOWED_INTENTS, intentsFor } from './wire.ts';

/** What the start-up report says about reading messages. */
export interface IntentReport {
  level: 'info' | 'warn' | 'error';
  text: string;
}

/**
 * The start-up statement about message content (plain function, tested).
 * @param wantContent the account asks for MESSAGE_CONTENT (not mention-only)
 * @param appFlags READY `application.flags`, or null when unknown
 */
export function intentReport(wantContent: boolean, appFlags: number | null): IntentReport {
  const enabled = appFlags !== null && (appFlags & (APP_FLAG_MESSAGE_CONTENT | APP_FLAG_MESSAGE_CONTENT_LIMITED)) !== 0;
  if (!wantContent) {
    return {
      level: 'info',
      text: 'discord: mention-only mode (no MessageContent intent): the bot reads DMs and guild messages that @mention it or reply to it',
    };
  }
  if (appFlags !== null && !enabled) {
    return {
      level: 'warn',
      text: 'discord: the MessageContent intent is not enabled for this application: guild messages arrive without text unless they @mention the bot. Enable it in the Developer Portal (Bot → Privileged Gateway Intents) or set DISCORD_MESSAGE_CONTENT=off',
    };
  }
  return {
    level: 'info',
    text: 'discord: intents Guilds, GuildMessages, MessageContent, DirectMessages (+ Channel partial): DMs and guild @mentions',
  };
}

/** The text for a login failure: 4014 / "disallowed intents" gets the fix, others their message. */
export function loginFailureText(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const msg = typeof e?.message === 'string' ? e.message : String(err);
  if (e?.code === CLOSE_DISALLOWED_INTENTS || /disallowed intent/i.test(msg)) {
    return 'discord: login refused: the MessageContent intent is privileged and not enabled (close 4014). Enable it in the Developer Portal (Bot → Privileged Gateway Intents), or set DISCORD_MESSAGE_CONTENT=off for mention-only mode';
  }
  return `discord: login failed: ${msg}`;
}

/**
 * discord.js builds its own cache objects from every dispatch (WebSocketManager#handlePacket, a
 * private method) and its structures throw on malformed ones (`new BaseInteraction` on a missing
 * `member`, MessageCreateAction on a non-object `d` …) inside an async emitter: an unhandled
 * rejection per bad frame (found by the gateway fuzz test). Our mapping reads the raw frame
 * (emitted before handlePacket), so a throw there is caught and logged instead.
 */
function guardPacketHandling(client: Client, log: Logger): void {
  const ws = client.ws as unknown as { handlePacket?: (packet: unknown, shard: unknown) => boolean };
  const original = ws.handlePacket;
  if (typeof original !== 'function') return;
  ws.handlePacket = (packet, shard) => {
    try {
      return original.call(client.ws, packet, shard);
    } catch (err) {
      log.warn(
        { err: (err as Error)?.message ?? String(err), t: (packet as { t?: unknown })?.t },
        'discord: discord.js could not process a dispatch (ignored)',
      );
      return false;
    }
  };
}

/** First wait before a dispatch that could not be stored is tried again, ms. */
export const RETRY_FIRST_MS = 500;
/** Longest wait between tries, ms. */
export const RETRY_MAX_MS = 15_000;

/** A running gateway connection. */
export interface Gateway {
  client: Client;
  stop(): Promise<void>;
}

/**
 * Connect and feed dispatches to `onDispatch` sequentially, each stored before the next (errors
 * are logged, never crash the process).
 * @throws the login error (after logging it with {@link loginFailureText}).
 */
export async function connectGateway(p: {
  token: string;
  apiRoot: string;
  messageContent: boolean;
  log: Logger;
  /** Keeps the session across restarts; without it every start identifies anew. */
  session?: SessionKeeper;
  onDispatch(frame: unknown): Promise<void>;
  onReady(user: { id: string; username: string }): void;
}): Promise<Gateway> {
  await p.session?.load();
  const client = new Client({
    intents: intentsFor(p.messageContent),
    partials: [Partials.Channel],
    rest: { api: p.apiRoot },
    ...(p.session ? { ws: { buildStrategy: p.session.buildStrategy } } : {}),
  });
  guardPacketHandling(client, p.log);
  let stopping = false;
  /** Set once a dispatch was given up (lease lost, stopping): nothing later is handed on. */
  let gaveUp = false;
  let wakeRetry: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => ((wakeRetry = undefined), resolve()), ms);
      wakeRetry = () => (clearTimeout(t), (wakeRetry = undefined), resolve());
    });
  /**
   * Hand one dispatch to the inbox, trying again (backing off) while it cannot be stored: a
   * later dispatch of the chat must not be stored before it. Refused for good → skipped. Lease
   * lost or stopping → given up with everything after it, and the stored sequence stays before
   * it, so the next holder's RESUME replays them in order.
   */
  const deliver = async (packet: unknown, sessionId: string | null, seq: unknown, t: unknown): Promise<void> => {
    let delay = RETRY_FIRST_MS;
    for (let attempt = 1; !gaveUp; attempt++) {
      try {
        await p.onDispatch(packet);
        if (attempt > 1) p.log.info({ t, seq, attempts: attempt }, 'discord: dispatch stored after retrying');
        return p.session?.handled(sessionId, seq, true);
      } catch (err) {
        const msg = (err as Error)?.message ?? String(err);
        if (err instanceof InboundRefusedError) {
          p.log.warn({ err: msg, t, seq }, 'discord: dispatch refused; skipped');
          return p.session?.handled(sessionId, seq, true);
        }
        if (err instanceof LeaseLostError || stopping) {
          gaveUp = true;
          p.log.info({ err: msg, t, seq }, 'discord: dispatch not stored; it and the later ones are replayed to the next holder');
          break;
        }
        p.log.error({ err: msg, t, seq, retry_in_ms: delay }, 'discord: dispatch failed; retrying it before any later one');
        await pause(delay);
        delay = Math.min(RETRY_MAX_MS, delay * 2);
      }
    }
    p.session?.handled(sessionId, seq, false);
  };
  let chain: Promise<void> = Promise.resolve();
  client.on(Events.Raw, (packet: unknown) => {
    const t = (packet as { t?: unknown })?.t;
    if (t === 'READY') {
      const d = (packet as { d?: { user?: { id?: unknown; username?: unknown }; application?: { flags?: unknown } } }).d;
      if (typeof d?.user?.id === 'string')
        p.onReady({ id: d.user.id, username: typeof d.user.username === 'string' ? d.user.username : '' });
      const flags = typeof d?.application?.flags === 'number' ? d.application.flags : null;
      const r = intentReport(p.messageContent, flags);
      p.log[r.level]({ application_flags: flags }, r.text);
    }
    const sessionId = p.session?.sessionId() ?? null;
    const seq = (packet as { s?: unknown })?.s;
    chain = chain.then(() => deliver(packet, sessionId, seq, t));
  });
  client.on(Events.Error, (err) => p.log.error({ err: err.message }, 'discord: client error'));
  try {
    await client.login(p.token);
  } catch (err) {
    p.log.error({}, loginFailureText(err));
    p.session?.close(); // a failed login does not end a stored session: the next start resumes it
    await client.destroy().catch(() => undefined);
    throw err;
  }
  return {
    client,
    async stop() {
      stopping = true;
      wakeRetry?.();
      await chain.catch(() => undefined);
      p.session?.close();
      await client.destroy();
      await p.session?.flush();
    },
  };
}
