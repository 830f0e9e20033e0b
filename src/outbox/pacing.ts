/**
 * Flood control of the outbox (docs/operations-delivery.md "Flood control"): how fast one chat
 * and one bot account may be sent to, per channel.
 *
 * - Per chat: the platform's documented pace (e.g. Telegram ~1 message/s in a private chat,
 *   20/min in a group) as a GCRA (a virtual schedule `tat` and a burst tolerance). The state
 *   lives in `skillgate.delivery_pace` (src/outbox/store.ts), so every replica sees it; a chat
 *   that is not due is simply not taken, it never holds a sender.
 * - Per account: no fixed guess. After the platform answered 429 / `retry_after`, the account
 *   is paused until then (shared through the same table) and its rate is halved from what was
 *   being sent; the rate then grows back 10 % per second and the limit is dropped 60 s after
 *   the last 429. An operator can set a ceiling per account (`max_sends_per_s`, off by
 *   default); a channel may have a documented app-wide ceiling.
 *
 * Only messages go through here: typing indicators, callback answers and other calls never
 * take from these budgets.
 */
import type { ChatType, OutboundTarget } from '../channel/types.ts';

/** A pace: at most one message per `intervalMs` on average, up to `burst` at once after a pause. */
export interface Pace {
  intervalMs: number;
  burst: number;
  /**
   * Answers to the person's own messages are never held by this pace (they still move it):
   * where the platform tolerates bursts in a one-to-one chat and answers an excess with 429,
   * the person sets the pace of a conversation; the bot's own messages keep the documented one.
   */
  answersFree?: boolean;
}

/** An account-wide rate, sends per second (> 0); `burst` defaults to 1 s worth (at least 1). */
export interface RateLimit {
  perSecond: number;
  burst?: number;
}

/** What a channel documents. */
export interface ChannelPolicy {
  /** Per chat, by chat type; a missing type is not paced per chat. */
  chat: Partial<Record<ChatType, Pace>>;
  /** A documented app-wide ceiling (absent: adaptive only). */
  account?: RateLimit;
}

/**
 * Per-channel policies (docs/operations-delivery.md lists the sources). Channels not listed
 * (web, web_admin, notify) are not paced.
 */
export const CHANNEL_POLICIES: Readonly<Record<string, ChannelPolicy>> = Object.freeze({
  // Bot FAQ: ~1 message/s in one chat (short bursts tolerated), 20 messages/min in a group;
  // the overall limit is dynamic and answered with 429 retry_after.
  telegram: {
    chat: {
      direct: { intervalMs: 1000, burst: 3, answersFree: true },
      group: { intervalMs: 3000, burst: 3 },
      channel: { intervalMs: 3000, burst: 3 },
    },
  },
  // Send-message API: 5 QPS to one user and 5 QPS to one group (shared by the group's bots);
  // the app-level frequency control of the API is 50/s.
  feishu: {
    chat: { direct: { intervalMs: 200, burst: 5, answersFree: true }, group: { intervalMs: 200, burst: 5 } },
    account: { perSecond: 50 },
  },
  // REST: 50 requests/s global per bot; per-route buckets are kept by discord.js REST itself
  // from the response headers (it waits them out before sending).
  discord: { chat: {}, account: { perSecond: 50 } },
  // App messages: 30/min and 1000/h to one member, the excess is dropped silently — so paced
  // below it; group chats: 20 messages/min.
  wecom: { chat: { direct: { intervalMs: 2000, burst: 5 }, group: { intervalMs: 3000, burst: 3 } } },
  // Robot messages: 20/min per group (exceeding it blocks the robot for 10 min); one-to-one
  // robot messages are limited by the API QPS and answered with 429 / Qps codes.
  dingtalk: { chat: { group: { intervalMs: 3000, burst: 3 } } },
});

/** Channels whose one-to-one chat pace lets answers go ({@link Pace.answersFree}). */
export const ANSWERS_FREE_CHANNELS: readonly string[] = Object.entries(CHANNEL_POLICIES)
  .filter(([, p]) => p.chat.direct?.answersFree === true)
  .map(([channel]) => channel);

/** The chat pace of a target under `policies`, or undefined when the chat is not paced. */
export function chatPaceOf(
  target: Pick<OutboundTarget, 'channel' | 'chat_type'>,
  policies: Readonly<Record<string, ChannelPolicy>>,
): Pace | undefined {
  const p = Object.hasOwn(policies, target.channel) ? policies[target.channel] : undefined;
  if (!p) return undefined;
  return p.chat[target.chat_type ?? 'direct'];
}

/** A clock the pacer reads and sleeps on (the outbox's). */
export interface PaceClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** The account-wide state a replica learned from the database (see {@link AccountPacer.adopt}). */
export interface SharedAccountPace {
  /** Nothing of the account before this (ms). */
  notBeforeMs: number;
  /** The rate set at the last 429, sends/s, and when (ms); null when none. */
  rate: { perSecond: number; sinceMs: number } | null;
}

/** Growth of the adaptive rate per second after a 429, and when the limit is dropped. */
export const RECOVERY_PER_SECOND = 1.1;
export const RECOVERY_MS = 60_000;
/** The adaptive rate never goes below this, sends/s. */
export const MIN_ADAPTIVE_RATE = 1;

/** The adaptive rate at `nowMs` after being set to `perSecond` at `sinceMs`; null once recovered. */
export function adaptiveRate(rate: { perSecond: number; sinceMs: number } | null, nowMs: number): number | null {
  if (!rate) return null;
  const age = Math.max(0, nowMs - rate.sinceMs);
  if (age >= RECOVERY_MS) return null;
  return rate.perSecond * RECOVERY_PER_SECOND ** (age / 1000);
}

/**
 * One account's sending pace in this process: the tightest of the operator's ceiling, the
 * documented ceiling and the adaptive rate, after any pause. Reservation style: concurrent
 * senders get evenly spaced times instead of racing.
 */
export class AccountPacer {
  private tat = 0;
  private pausedUntil = 0;
  private rate: { perSecond: number; sinceMs: number } | null = null;
  /** Sends counted per 1 s window (to know what was being sent when a 429 came). */
  private windowStart = Number.NEGATIVE_INFINITY;
  private windowCount = 0;
  private lastWindowCount = 0;

  constructor(private readonly limits: RateLimit[]) {}

  /** The rate in force at `nowMs`, sends/s; null = unlimited. */
  rateAt(nowMs: number): number | null {
    const all = this.limits.map((l) => l.perSecond);
    const a = adaptiveRate(this.rate, nowMs);
    if (a !== null) all.push(a);
    return all.length > 0 ? Math.min(...all) : null;
  }

  /** Nothing before this (ms): a 429's pause. */
  get pausedUntilMs(): number {
    return this.pausedUntil;
  }

  /**
   * Wait until this account may send one message (a 429 that arrives meanwhile extends the wait).
   * @returns once the send may start
   */
  async acquire(clock: PaceClock): Promise<void> {
    let now = clock.now();
    const rate = this.rateAt(now);
    let at = Math.max(now, this.pausedUntil);
    if (rate !== null) {
      const interval = 1000 / rate;
      const burst = Math.max(1, Math.min(...this.limits.map((l) => l.burst ?? l.perSecond), rate));
      const tolerance = (burst - 1) * interval;
      at = Math.max(at, this.tat - tolerance);
      this.tat = Math.max(this.tat, at) + interval;
    }
    while (at > now) {
      await clock.sleep(at - now);
      now = clock.now();
      at = Math.max(at, this.pausedUntil);
    }
    if (now - this.windowStart >= 1000) {
      this.lastWindowCount = now - this.windowStart < 2000 ? this.windowCount : 0;
      this.windowStart = now;
      this.windowCount = 0;
    }
    this.windowCount++;
  }

  /** Sends per second lately (the fuller of the current and the previous 1 s window). */
  private observed(): number {
    return Math.max(this.windowCount, this.lastWindowCount);
  }

  /**
   * The platform answered 429 with `retryAfterMs` at `nowMs`: pause until then and halve the
   * rate from what was being sent. @returns the new shared state to store
   */
  rateLimited(nowMs: number, retryAfterMs: number | null): SharedAccountPace {
    this.pausedUntil = Math.max(this.pausedUntil, nowMs + Math.max(0, retryAfterMs ?? 1000));
    const current = this.rateAt(nowMs) ?? Math.max(MIN_ADAPTIVE_RATE, this.observed());
    this.rate = { perSecond: Math.max(MIN_ADAPTIVE_RATE, current / 2), sinceMs: nowMs };
    this.tat = Math.max(this.tat, this.pausedUntil);
    return { notBeforeMs: this.pausedUntil, rate: this.rate };
  }

  /** Take what another replica stored (the stricter of it and ours wins). */
  adopt(shared: SharedAccountPace): void {
    this.pausedUntil = Math.max(this.pausedUntil, shared.notBeforeMs);
    if (shared.rate && (!this.rate || shared.rate.sinceMs > this.rate.sinceMs)) this.rate = shared.rate;
  }
}

/** The pacers of one outbox, created on first use per `channel` + `account`. */
export class AccountPacers {
  private readonly pacers = new Map<string, AccountPacer>();

  /**
   * @param policies per-channel policies (documented account ceilings)
   * @param ceilingOf the operator's ceiling of an account, if any
   */
  constructor(
    private readonly policies: Readonly<Record<string, ChannelPolicy>>,
    private readonly ceilingOf: (channel: string, account: string) => RateLimit | undefined,
  ) {}

  get(channel: string, account: string): AccountPacer {
    const key = `${channel}\u0000${account}`;
    let p = this.pacers.get(key);
    if (!p) {
      const limits: RateLimit[] = [];
      const documented = Object.hasOwn(this.policies, channel) ? this.policies[channel]!.account : undefined;
      if (documented) limits.push(documented);
      const ceiling = this.ceilingOf(channel, account);
      if (ceiling) {
        if (!(ceiling.perSecond > 0) || !Number.isFinite(ceiling.perSecond))
          throw new RangeError('rate limit perSecond must be a positive number');
        limits.push(ceiling);
      }
      p = new AccountPacer(limits);
      this.pacers.set(key, p);
    }
    return p;
  }
}

/**
 * Operator ceilings from the environment and the config file: `<CHANNEL>_MAX_SENDS_PER_S`
 * for the `.env` account `default`, `max_sends_per_s` on an `accounts:` entry.
 * @returns `channel` → `account` → ceiling (sends/s, burst 1 s worth)
 */
export function operatorCeilings(
  env: NodeJS.ProcessEnv,
  accounts: ReadonlyArray<{ channel: string; id: string; [k: string]: unknown }>,
): (channel: string, account: string) => RateLimit | undefined {
  const map = new Map<string, RateLimit>();
  const put = (channel: string, account: string, raw: unknown): void => {
    const n = Number(raw);
    if (raw !== undefined && raw !== null && raw !== '' && Number.isFinite(n) && n > 0)
      map.set(`${channel}\u0000${account}`, { perSecond: n });
  };
  for (const [k, v] of Object.entries(env)) {
    const m = /^([A-Z][A-Z0-9]*)_MAX_SENDS_PER_S$/.exec(k);
    if (m) put(m[1]!.toLowerCase(), 'default', v);
  }
  for (const a of accounts) put(a.channel, a.id, a.max_sends_per_s);
  return (channel, account) => map.get(`${channel}\u0000${account}`);
}
