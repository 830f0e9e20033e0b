/** Retry delays of the outbox: pure functions. Flood control: pacing.test.ts. */
import { describe, expect, it } from 'vitest';
import { backoffMs, retryAt } from '../../src/outbox/index.ts';

describe('outbox: backoffMs', () => {
  it('doubles per attempt from the base, with equal jitter in [half, full]', () => {
    expect([1, 2, 3, 4].map((n) => backoffMs(n, 1000, 300_000, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((n) => backoffMs(n, 1000, 300_000, () => 0.999999))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffMs(3, 1000, 300_000, () => 0.5)).toBe(3000);
  });

  it('is capped at max, also for huge attempt numbers, and treats attempt < 1 as 1', () => {
    expect(backoffMs(30, 1000, 300_000, () => 1)).toBe(300_000);
    expect(backoffMs(5000, 1000, 300_000, () => 0)).toBe(150_000);
    expect(backoffMs(0, 1000, 300_000, () => 1)).toBe(1000);
  });

  it("retryAt never comes before the platform's retry_after, nor before the backoff", () => {
    expect(retryAt(10_000, 750, 5000)).toBe(15_000);
    expect(retryAt(10_000, 8000, 5000)).toBe(18_000);
    expect(retryAt(10_000, 750, null)).toBe(10_750);
    expect(retryAt(10_000, 750, -3)).toBe(10_750);
  });
});
