/**
 * Per-channel send rate limits (issue 5: "a per-channel rate limit"): a token bucket per
 * adapter (channel + account), driven by an injected clock. Reservation style: a caller that
 * finds the bucket empty still takes a token (the balance goes negative) and is told how long
 * to wait, so concurrent senders queue up at evenly spaced times instead of racing.
 *
 * The limit is per gateway process; replicas sharing a bot token each have their own bucket.
 */

/** One channel's limit. */
export interface RateLimit {
  /** Sustained sends per second (> 0). */
  perSecond: number;
  /** Sends allowed at once after an idle period (default: `perSecond`, at least 1). */
  burst?: number;
}

/**
 * Defaults per channel, sends/s, below the platforms' documented bot limits (Telegram ~30/s
 * overall, Feishu 5 QPS per app for send message, Discord 50/s global, WeCom / DingTalk robot
 * limits). Channels not listed (web, web_admin) are unlimited.
 */
export const DEFAULT_RATE_LIMITS: Readonly<Record<string, RateLimit>> = Object.freeze({
  telegram: { perSecond: 25 },
  feishu: { perSecond: 5 },
  discord: { perSecond: 40 },
  wecom: { perSecond: 10 },
  dingtalk: { perSecond: 15 },
});

/** A token bucket. */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly burst: number;

  /**
   * @param limit the rate and burst
   * @param nowMs the clock's current time, ms (the bucket starts full)
   * @throws RangeError when `perSecond` is not a positive number
   */
  constructor(
    private readonly limit: RateLimit,
    nowMs: number,
  ) {
    if (!(limit.perSecond > 0) || !Number.isFinite(limit.perSecond)) throw new RangeError('rate limit perSecond must be a positive number');
    this.burst = Math.max(1, limit.burst ?? limit.perSecond);
    this.tokens = this.burst;
    this.last = nowMs;
  }

  /**
   * Take one token at `nowMs`.
   * @returns how long the caller must wait before sending, ms (0 = send now)
   */
  reserve(nowMs: number): number {
    if (nowMs > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((nowMs - this.last) * this.limit.perSecond) / 1000);
      this.last = nowMs;
    }
    this.tokens -= 1;
    if (this.tokens >= 0) return 0;
    return Math.ceil((-this.tokens * 1000) / this.limit.perSecond) + Math.max(0, this.last - nowMs);
  }
}

/** The buckets of one outbox, created on first use per `channel` + `account`. */
export class RateLimiter {
  private readonly buckets = new Map<string, TokenBucket | null>();
  private readonly limits: Record<string, RateLimit>;

  /** @param overrides per-channel limits replacing the defaults (see {@link DEFAULT_RATE_LIMITS}) */
  constructor(overrides: Record<string, RateLimit> = {}) {
    this.limits = { ...DEFAULT_RATE_LIMITS, ...overrides };
  }

  /** How long to wait before the next send of `channel`/`account`, ms (0 for unlimited channels). */
  reserve(channel: string, account: string, nowMs: number): number {
    const key = `${channel}\u0000${account}`;
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      const limit = Object.hasOwn(this.limits, channel) ? this.limits[channel] : undefined;
      bucket = limit ? new TokenBucket(limit, nowMs) : null;
      this.buckets.set(key, bucket);
    }
    return bucket ? bucket.reserve(nowMs) : 0;
  }
}
