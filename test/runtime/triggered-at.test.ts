/** `triggered_at_str` formatting (R-CTX-10): the kept text of the last minute is never served for another. */
import { describe, expect, it } from 'vitest';
import { formatTriggeredAt } from '../../src/runtime/coerce.ts';

describe('formatTriggeredAt (R-CTX-10)', () => {
  it('R-CTX-10: UTC minutes, in any order; seconds of the same minute give the same text', () => {
    const t = Date.UTC(2026, 11, 4, 1, 59, 0) / 1000;
    expect(formatTriggeredAt(t)).toBe('2026-12-04 01:59');
    expect(formatTriggeredAt(t + 59.9)).toBe('2026-12-04 01:59');
    expect(formatTriggeredAt(t + 60)).toBe('2026-12-04 02:00');
    expect(formatTriggeredAt(t - 0.001)).toBe('2026-12-04 01:58');
    expect(formatTriggeredAt(t)).toBe('2026-12-04 01:59');
    expect(formatTriggeredAt(t + 86_400)).toBe('2026-12-05 01:59');
    expect(formatTriggeredAt(-30)).toBe('1969-12-31 23:59');
    expect(formatTriggeredAt(0)).toBe('1970-01-01 00:00');
  });

  it('R-CTX-10: a time that is not representable throws, as before', () => {
    expect(() => formatTriggeredAt(Number.NaN)).toThrow(RangeError);
    expect(() => formatTriggeredAt(1e20)).toThrow(RangeError);
  });
});
