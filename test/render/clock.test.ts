/**
 * One clock for people (docs/results.md "Times"): instants in the organisation's zone
 * (`SKILLGATE_TIMEZONE`, else the host's), one format; wall-clock values left as written.
 */
import { describe, expect, it } from 'vitest';
import { formatInstant, hostTimeZone, isInstantString, orgTimeZone, showInstant } from '../../src/present/clock.ts';

describe('clock', () => {
  it('the organisation zone: SKILLGATE_TIMEZONE when it is a real zone, else the host zone', () => {
    expect(orgTimeZone({ SKILLGATE_TIMEZONE: 'Asia/Shanghai' })).toBe('Asia/Shanghai');
    expect(orgTimeZone({ SKILLGATE_TIMEZONE: 'Mars/Olympus' })).toBe(hostTimeZone());
    expect(orgTimeZone({})).toBe(hostTimeZone());
  });

  it('an instant is written YYYY-MM-DD HH:mm:ss in the zone; UTC and local values agree', () => {
    expect(formatInstant(new Date('2026-12-01T20:34:20.386Z'), 'Asia/Shanghai')).toBe('2026-12-02 04:34:20');
    expect(showInstant('2026-12-01T20:34:20.386Z', 'Asia/Shanghai')).toBe('2026-12-02 04:34:20');
    expect(showInstant('2026-12-02 04:34:20+08:00', 'Asia/Shanghai')).toBe('2026-12-02 04:34:20');
    expect(showInstant('2026-12-01T20:34:20Z', 'Europe/Berlin')).toBe('2026-12-01 21:34:20');
  });

  it('a wall-clock or date-only value has no zone and is shown as written', () => {
    expect(isInstantString('2026-12-02 04:34:26')).toBe(false);
    expect(showInstant('2026-12-02 04:34:26', 'Asia/Shanghai')).toBe('2026-12-02 04:34:26');
    expect(showInstant('2026-12-02', 'Asia/Shanghai')).toBe('2026-12-02');
    expect(showInstant('T-3', 'Asia/Shanghai')).toBe('T-3');
  });
});
