import { describe, expect, it } from 'vitest';
import { digestEqual, safeEqual } from '../../src/channel/safe-equal.ts';

describe('constant-time compares shared by the adapters', () => {
  it('safeEqual compares content and length, bytes not code units', () => {
    expect(safeEqual('sig', 'sig')).toBe(true);
    expect(safeEqual('sig', 'sih')).toBe(false);
    expect(safeEqual('sig', 'sig2')).toBe(false);
    expect(safeEqual('é', 'e\u0301')).toBe(false);
  });

  it('digestEqual compares whole strings of any length', () => {
    expect(digestEqual('secret', 'secret')).toBe(true);
    expect(digestEqual('secret', 'secreT')).toBe(false);
    expect(digestEqual('secret', 'secret-longer')).toBe(false);
    expect(digestEqual('', '')).toBe(true);
  });
});
