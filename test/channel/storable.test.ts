/**
 * Storable inbound values (src/channel/storable.ts): NUL and lone surrogates become U+FFFD in
 * strings and keys, valid Unicode (pairs too) is kept, a clean value is returned as it is.
 */
import { describe, expect, it } from 'vitest';
import { storableCopy, storableJson, storableText } from '../../src/channel/storable.ts';

describe('storable values', () => {
  it('replaces NUL and lone surrogates only', () => {
    expect(storableText('a\u0000b\ud800c\udc00d😀')).toBe('a\uFFFDb\uFFFDc\uFFFDd😀');
    expect(storableText('\udc00\ud800')).toBe('\uFFFD\uFFFD');
  });

  it('a clean value is returned itself; a dirty one is copied without touching the input', () => {
    const clean = { a: ['x', { b: '泵房 😀', n: 1, z: null }], t: true };
    expect(storableCopy(clean)).toBe(clean);
    const dirty = { ok: { same: 'x' }, list: ['fine', 'a\u0000'], 'k\ud800': 1 };
    const copy = storableCopy(dirty);
    expect(copy).toEqual({ ok: { same: 'x' }, list: ['fine', 'a\uFFFD'], 'k\uFFFD': 1 });
    expect(dirty.list[1]).toBe('a\u0000');
    expect(Object.keys(dirty)).toContain('k\ud800');
    expect(copy.ok).toBe(dirty.ok); // an unchanged part is shared
  });

  it('storableJson gives the storable value and its JSON text, also past a false alarm', () => {
    const clean = { t: 'no escapes 😀' };
    expect(storableJson(clean)).toEqual({ value: clean, json: JSON.stringify(clean) });
    expect(storableJson(clean).value).toBe(clean);
    // a backslash followed by "u0000" as text is valid, kept verbatim
    const literal = { t: '\\u0000 and \\ud800' };
    const l = storableJson(literal);
    expect(l.value).toBe(literal);
    expect(JSON.parse(l.json)).toEqual(literal);
    const dirty = { t: 'a\u0000b', '\udfff': ['\ud83d'] };
    const d = storableJson(dirty);
    expect(d.value).toEqual({ t: 'a\uFFFDb', '\uFFFD': ['\uFFFD'] });
    expect(d.json).toBe(JSON.stringify(d.value));
  });
});
