/**
 * WeCom's callback crypto, "WXBizMsgCrypt" (developer.work.weixin.qq.com/document/path/90968,
 * 加解密方案说明 → wecom/encrypted_text_envelope.xml notes):
 * - AES key = base64decode(EncodingAESKey + '=') — 32 bytes; IV = the key's first 16 bytes;
 * - AES-256-CBC with PKCS#7 padding to a multiple of **32** bytes (not 16);
 * - plaintext layout: random(16) | msg_len (4 bytes, big-endian) | msg | receive_id
 *   (the CorpID for self-built apps);
 * - msg_signature = hex(SHA-1(sort([token, timestamp, nonce, encrypt]).join(''))).
 * Pure functions, no I/O; every compare is constant time; nothing here throws on bad input.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { safeEqual } from '../../src/channel/index.ts';

/** PKCS#7 block size of the scheme, bytes. */
export const WECOM_PAD_BLOCK = 32;

/**
 * The 32-byte AES key of an EncodingAESKey (43 base64 characters).
 * @throws RangeError when the key is not 43 base64 characters decoding to 32 bytes
 */
export function wecomAesKey(encodingAesKey: string): Buffer {
  if (!/^[A-Za-z0-9+/]{43}$/.test(encodingAesKey)) throw new RangeError('EncodingAESKey must be 43 base64 characters');
  const key = Buffer.from(`${encodingAesKey}=`, 'base64');
  if (key.length !== 32) throw new RangeError('EncodingAESKey must decode to 32 bytes');
  return key;
}

/** hex(SHA-1) of the four values sorted byte-wise and concatenated. */
export function wecomSignature(token: string, timestamp: string, nonce: string, encrypt: string): string {
  const parts = [token, timestamp, nonce, encrypt].sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
  return createHash('sha1').update(parts.join(''), 'utf8').digest('hex');
}

/** True when `signature` (hex, any case) is the signature of the four values. */
export function checkWecomSignature(signature: string, token: string, timestamp: string, nonce: string, encrypt: string): boolean {
  return safeEqual(signature.trim().toLowerCase(), wecomSignature(token, timestamp, nonce, encrypt));
}

/** A decrypted payload: the message and the receive id it was bound to. */
export interface WecomPlain {
  msg: string;
  receiveId: string;
}

/**
 * Decrypt an `Encrypt` / `echostr` value. @returns null when it is not base64 AES-256-CBC under
 * this key with valid 32-byte PKCS#7 padding and a consistent length field (never throws).
 */
export function wecomDecrypt(encrypt: string, key: Buffer): WecomPlain | null {
  try {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encrypt)) return null;
    const raw = Buffer.from(encrypt, 'base64');
    if (raw.length === 0 || raw.length % 16 !== 0) return null;
    const d = createDecipheriv('aes-256-cbc', key, key.subarray(0, 16));
    d.setAutoPadding(false);
    const out = Buffer.concat([d.update(raw), d.final()]);
    const pad = out[out.length - 1]!;
    if (pad < 1 || pad > WECOM_PAD_BLOCK || pad > out.length) return null;
    for (let i = out.length - pad; i < out.length; i++) if (out[i] !== pad) return null;
    const body = out.subarray(0, out.length - pad);
    if (body.length < 20) return null;
    const len = body.readUInt32BE(16);
    if (20 + len > body.length) return null;
    return { msg: body.subarray(20, 20 + len).toString('utf8'), receiveId: body.subarray(20 + len).toString('utf8') };
  } catch {
    return null;
  }
}

/** Encrypt like the platform does (fakes and tests); `random` is the 16-byte prefix. */
export function wecomEncrypt(msg: string, receiveId: string, key: Buffer, random: Buffer = randomBytes(16)): string {
  const m = Buffer.from(msg, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(m.length);
  const body = Buffer.concat([random.subarray(0, 16), len, m, Buffer.from(receiveId, 'utf8')]);
  const pad = WECOM_PAD_BLOCK - (body.length % WECOM_PAD_BLOCK);
  const c = createCipheriv('aes-256-cbc', key, key.subarray(0, 16));
  c.setAutoPadding(false);
  return Buffer.concat([c.update(Buffer.concat([body, Buffer.alloc(pad, pad)])), c.final()]).toString('base64');
}
