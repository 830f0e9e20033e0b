/**
 * Retry delays ("retries and exponential backoff that honour the platform's
 * `retry_after`"). A pure function so the outbox and the inbox can run under an injected clock
 * and a pinned random source in tests.
 */

/**
 * The wait before retry number `attempt` (1 = the first retry after the first failure), ms:
 * exponential `base · 2^(attempt-1)` capped at `max`, with "equal jitter" — a value drawn
 * uniformly from [half, full] of that, so replicas that failed together do not retry together
 * and the wait never collapses to zero.
 * @param attempt attempts made so far (≥ 1; lower values count as 1)
 * @param baseMs the first delay, ms (> 0)
 * @param maxMs the cap, ms (≥ baseMs)
 * @param random a source in [0, 1) (Math.random in production)
 * @returns an integer number of ms in [min(cap, base·2^(attempt-1)) / 2, min(cap, base·2^(attempt-1))]
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const n = Math.max(1, Math.floor(attempt));
  // 2^(n-1) overflows to Infinity for huge n; Math.min keeps the cap.
  const full = Math.min(maxMs, baseMs * 2 ** (n - 1));
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(full / 2 + (full / 2) * r);
}

/**
 * When a failed send may be tried again, ms since the epoch: never before the platform's
 * advertised wait (`retry_after_ms`), and never sooner than the backoff.
 */
export function retryAt(nowMs: number, backoff: number, retryAfterMs?: number | null): number {
  const advised = typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs > 0 ? retryAfterMs : 0;
  return nowMs + Math.max(backoff, Math.ceil(advised));
}
