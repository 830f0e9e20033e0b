/**
 * Long polling (Bot API #getupdates) for accounts without a webhook: `deleteWebhook` once
 * (getUpdates is refused while a webhook is set), then `getUpdates` with a 25 s server-side
 * timeout in a loop. An update's offset is advanced only after it was stored, so a database
 * outage redelivers it; failures back off 1 s doubling to 30 s. `stop()` aborts the pending call.
 */
import type { Api } from 'grammy';

/** grammY types its signal parameter with the abort-controller polyfill; Node's is compatible at run time. */
type GrammySignal = Parameters<Api['getUpdates']>[1];
import type { Update } from 'grammy/types';
import { type AdapterHost, InboundRefusedError, LeaseLostError } from '../../src/channel/index.ts';
import type { Logger } from '../../src/log/logger.ts';

/** Update types the adapter handles (also sent to setWebhook). */
export const ALLOWED_UPDATES = ['message', 'edited_message', 'channel_post', 'edited_channel_post', 'callback_query'] as const;

/** A running poll loop. */
export interface Poller {
  /** Resolves once the loop has ended. */
  stop(): Promise<void>;
}

/** Start polling; `process` stores one update (throws when it could not). */
export function startPolling(opts: {
  api: Api;
  host: AdapterHost;
  log: Logger;
  process(update: Update, host: AdapterHost): Promise<void>;
  /** getUpdates long-poll seconds (default 25). */
  timeoutS?: number;
}): Poller {
  const abort = new AbortController();
  let stopped = false;
  let delay = 1000;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      abort.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
  const fail = async (what: string, err: unknown) => {
    opts.log.warn({ err: (err as Error).message, retry_in_ms: delay }, what);
    await sleep(delay);
    delay = Math.min(30_000, delay * 2);
  };
  const loop = (async () => {
    let offset: number | undefined;
    try {
      await opts.api.deleteWebhook({ drop_pending_updates: false }, abort.signal as unknown as GrammySignal);
    } catch (err) {
      if (!stopped) opts.log.warn({ err: (err as Error).message }, 'telegram: deleteWebhook failed; polling anyway');
    }
    while (!stopped) {
      let updates: Update[];
      try {
        updates = await opts.api.getUpdates(
          { offset, timeout: opts.timeoutS ?? 25, allowed_updates: [...ALLOWED_UPDATES] },
          abort.signal as unknown as GrammySignal,
        );
      } catch (err) {
        if (stopped) break;
        await fail('telegram: getUpdates failed', err);
        continue;
      }
      delay = 1000;
      for (const u of updates) {
        try {
          await opts.process(u, opts.host);
          offset = u.update_id + 1;
        } catch (err) {
          if (err instanceof LeaseLostError) {
            // Another replica owns the bot now: stop without advancing the offset, it fetches this update.
            opts.log.info({ update_id: u.update_id }, 'telegram: lease lost; polling stops');
            stopped = true;
            break;
          }
          if (err instanceof InboundRefusedError) {
            opts.log.warn({ err: err.message, update_id: u.update_id }, 'telegram: update refused; skipped');
            offset = u.update_id + 1;
            continue;
          }
          await fail('telegram: an update could not be stored; it is fetched again', err);
          break;
        }
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      abort.abort();
      await loop;
    },
  };
}
