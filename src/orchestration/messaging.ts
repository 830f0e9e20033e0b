/**
 * The messaging services the built-in `notify`, `send_message` and `await_reply` skills use
 * items 1-3; docs/messaging.md: the outbox, the channel adapters that are on, and
 * the clock. The gateway builds one per process and puts it on `SkillServices.messaging`; the
 * runtime context carries it as the in-process-only key `messaging` (never serialised, passed
 * on through `call_skill` so a skill can `call_skill("notify", …)`).
 */
import type { ChannelAdapter } from '../channel/types.ts';
import type { Logger } from '../log/logger.ts';
import type { Outbox } from '../outbox/types.ts';
import type { Db } from '../store/db.ts';

/** What the messaging skills need from the running gateway. */
export interface MessagingServices {
  db: Db;
  /** The outbox every message goes through (at least once, idempotency keys). */
  outbox: Pick<Outbox, 'enqueue' | 'get' | 'waitFor'>;
  /** The adapter of a channel account that is on (`notify`/`default` = the Apprise API). */
  adapterFor(channel: string, account: string): ChannelAdapter | undefined;
  /** Is a skill of this name registered (await_reply refuses unknown continuation skills)? */
  skillExists?(name: string): boolean;
  /** Folders besides the session workspace that attachments may come from (the upload store). */
  attachmentRoots?: readonly string[];
  /** How long a call waits for its outbox rows, ms (default {@link DEFAULT_DELIVERY_WAIT_MS}). */
  waitMs?: number;
  /** Clock of pending-reply expiry (tests inject one; default the wall clock). */
  now?: () => Date;
  log?: Logger;
}

/** Default bounded wait of notify / send_message on their outbox rows, ms. */
export const DEFAULT_DELIVERY_WAIT_MS = 10_000;

/** The runtime_context key that carries the services (in process only). */
export const MESSAGING_CTX_KEY = 'messaging';

/** The services of a runtime context, or undefined (a subprocess, a CLI without a gateway). */
export function messagingOf(ctx: Record<string, unknown> | undefined): MessagingServices | undefined {
  const m = ctx?.[MESSAGING_CTX_KEY] as Partial<MessagingServices> | undefined;
  return m && typeof m === 'object' && m.outbox && typeof m.adapterFor === 'function' ? (m as MessagingServices) : undefined;
}

/** Language of user-facing texts from a context (`_meta.lang` / `lang`), zh-CN by default. */
export function langOf(input: Record<string, unknown>, ctx: Record<string, unknown> | undefined): 'zh-CN' | 'en' {
  const meta = ctx?._meta as { lang?: unknown } | undefined;
  return input.lang === 'en' || meta?.lang === 'en' || ctx?.lang === 'en' ? 'en' : 'zh-CN';
}

/** The final state of one outbox row as a messaging call reports it. */
export interface DeliveryOutcome {
  status: 'sent' | 'queued' | 'failed';
  /** The platform's (or Apprise API's) reason of the last failed attempt. */
  error?: string;
  /** True when an attempt failed and the outbox will try again. */
  retrying?: boolean;
}

/**
 * Wait up to `timeoutMs` for outbox row `id`: `sent` / `failed` as soon as it is final; a row
 * whose attempt failed and that waits for a retry ends the wait early as `queued` with the
 * reason (`retrying`); else `queued` at the deadline. Never throws (a database error is
 * reported as `queued` with the error: the row was stored and the outbox still owns it).
 */
export async function awaitDelivery(outbox: MessagingServices['outbox'], id: string, timeoutMs: number): Promise<DeliveryOutcome> {
  const deadline = Date.now() + Math.max(0, timeoutMs);
  try {
    for (;;) {
      const rec = await outbox.get(id);
      if (!rec) return { status: 'failed', error: `outbox message ${id} is gone` };
      if (rec.status === 'sent') return { status: 'sent' };
      if (rec.status === 'failed') return { status: 'failed', error: rec.last_error ?? 'failed' };
      if (rec.status === 'queued' && rec.attempts > 0 && rec.last_error) return { status: 'queued', error: rec.last_error, retrying: true };
      const left = deadline - Date.now();
      if (left <= 0) return { status: 'queued' };
      await outbox.waitFor(id, Math.min(left, 200));
    }
  } catch (err) {
    return { status: 'queued', error: err instanceof Error ? err.message : String(err) };
  }
}
