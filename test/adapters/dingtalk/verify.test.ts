/**
 * DingTalk callback verification (adapters/dingtalk/verify.ts;
 * docs/adapter-authoring.md#verification): the fixtures' own `timestamp`/`sign` pairs verify with
 * the fake app secret, the 300 s replay window holds in both directions on an injected time, and
 * any tampering is refused.
 */
import { describe, expect, it } from 'vitest';
import { REPLAY_WINDOW_MS, callbackSign, checkCallbackHeaders } from '../../../adapters/dingtalk/verify.ts';
import { safeEqual } from '../../../src/channel/safe-equal.ts';
import { EXPECTED, SECRETS } from './fake-dingtalk.ts';

describe('dingtalk callback signature', () => {
  it('every shared fixture signature verifies with the app secret (computed, not pasted)', () => {
    for (const [name, c] of Object.entries(EXPECTED.cases)) {
      const h = c.request.headers;
      expect(callbackSign(h.timestamp!, SECRETS.app_secret), name).toBe(h.sign);
      expect(checkCallbackHeaders({ timestamp: h.timestamp, sign: h.sign }, SECRETS.app_secret, Number(h.timestamp) + 1000), name).toBe(
        'ok',
      );
    }
  });

  it(`replay window ${REPLAY_WINDOW_MS / 1000} s both ways, boundaries included`, () => {
    const ts = '1736928060005';
    const sign = callbackSign(ts, SECRETS.app_secret);
    const at = (d: number) => checkCallbackHeaders({ timestamp: ts, sign }, SECRETS.app_secret, Number(ts) + d);
    expect(at(REPLAY_WINDOW_MS)).toBe('ok');
    expect(at(-REPLAY_WINDOW_MS)).toBe('ok');
    expect(at(REPLAY_WINDOW_MS + 1)).toBe('stale');
    expect(at(-REPLAY_WINDOW_MS - 1)).toBe('stale');
  });

  it('missing, malformed or tampered headers are refused', () => {
    const ts = '1736928060005';
    const sign = callbackSign(ts, SECRETS.app_secret);
    const now = Number(ts);
    expect(checkCallbackHeaders({ timestamp: ts }, SECRETS.app_secret, now)).toBe('missing');
    expect(checkCallbackHeaders({ sign }, SECRETS.app_secret, now)).toBe('missing');
    expect(checkCallbackHeaders({ timestamp: '', sign }, SECRETS.app_secret, now)).toBe('missing');
    for (const bad of ['1736928060005.0', '+1736928060005', '0x1', ' 1736928060005', '1e12']) {
      expect(checkCallbackHeaders({ timestamp: bad, sign }, SECRETS.app_secret, now), bad).toBe('stale');
    }
    expect(checkCallbackHeaders({ timestamp: '1736928060006', sign }, SECRETS.app_secret, now)).toBe('bad');
    expect(checkCallbackHeaders({ timestamp: ts, sign: callbackSign(ts, 'another_secret') }, SECRETS.app_secret, now)).toBe('bad');
    expect(checkCallbackHeaders({ timestamp: ts, sign: `${sign}=` }, SECRETS.app_secret, now)).toBe('bad');
  });

  it('safeEqual compares by content and length', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });
});
