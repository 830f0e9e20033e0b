/**
 * Feishu crypto on its own (adapters/feishu/verify.ts): the official decryption example of the
 * event-subscription docs, signature over raw bytes, the replay window bounds, constant-time
 * token compare semantics. docs/adapter-authoring.md#verification.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import {
  checkSignature,
  decryptEvent,
  encryptEvent,
  eventSignature,
  freshTimestamp,
  legacyCardSignature,
  signatureHeaders,
  tokenOf,
} from '../../../adapters/feishu/verify.ts';
import { safeEqual } from '../../../src/channel/safe-equal.ts';
import { SECRETS } from './helpers.ts';

describe('Feishu verify', () => {
  it('decrypts the docs example ("test key" → "hello world") and refuses garbage without throwing', () => {
    // open.feishu.cn event subscription guide, "Decrypt" sample.
    expect(decryptEvent('P37w+VZImNgPEO1RBhJ6RtKl7n6zymIbEG1pReEzghk=', 'test key')).toBe('hello world');
    expect(decryptEvent('P37w+VZImNgPEO1RBhJ6RtKl7n6zymIbEG1pReEzghk=', 'other key')).not.toBe('hello world');
    for (const bad of ['', 'AAAA', '!!!', 'a'.repeat(7), Buffer.alloc(40).toString('base64')])
      expect(decryptEvent(bad, 'test key')).toBeNull();
  });

  it('encrypt/decrypt round trip keeps Chinese text and emoji byte for byte', () => {
    const plain = JSON.stringify({ text: '报修单 😀 <&>' });
    expect(decryptEvent(encryptEvent(plain, SECRETS.encrypt_key), SECRETS.encrypt_key)).toBe(plain);
  });

  it('signature = hex sha256(timestamp + nonce + key + raw body); a re-serialized body does not verify', () => {
    const raw = Buffer.from('{"encrypt": "abc"}'); // note the space: not JSON.stringify output
    const sig = eventSignature('1736928000', 'n1', 'k', raw);
    expect(sig).toBe(createHash('sha256').update(`1736928000n1k${raw.toString()}`).digest('hex'));
    const now = 1736928000 * 1000;
    expect(checkSignature({ timestamp: '1736928000', nonce: 'n1', signature: sig }, raw, { encryptKey: 'k' }, now)).toBe('ok');
    expect(checkSignature({ timestamp: '1736928000', nonce: 'n1', signature: sig.toUpperCase() }, raw, { encryptKey: 'k' }, now)).toBe(
      'ok',
    );
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(raw.toString())));
    expect(checkSignature({ timestamp: '1736928000', nonce: 'n1', signature: sig }, reserialized, { encryptKey: 'k' }, now)).toBe('bad');
    const legacy = legacyCardSignature('1736928000', 'n1', 'vt', raw);
    expect(
      checkSignature({ timestamp: '1736928000', nonce: 'n1', signature: legacy }, raw, { encryptKey: 'k', verificationToken: 'vt' }, now),
    ).toBe('ok_legacy_card');
  });

  it('replay window is 300 s both ways, non-integers refused', () => {
    const now = 1_000_000 * 1000;
    expect(freshTimestamp('1000300', now)).toBe(true);
    expect(freshTimestamp('999700', now)).toBe(true);
    expect(freshTimestamp('1000301', now)).toBe(false);
    expect(freshTimestamp('999699', now)).toBe(false);
    for (const bad of ['', '1e6', '-1000000', '1000000.5', ' 1000000']) expect(freshTimestamp(bad, now)).toBe(false);
  });

  it('headers, token location (v2 header.token, v1 token) and compare', () => {
    expect(signatureHeaders({ 'x-lark-request-timestamp': '1', 'x-lark-request-nonce': 'n' })).toBeNull();
    expect(tokenOf({ header: { token: 'a' }, token: 'b' })).toBe('a');
    expect(tokenOf({ token: 'b' })).toBe('b');
    expect(tokenOf({ header: { token: 1 } })).toBeNull();
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
