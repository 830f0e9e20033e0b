/**
 * Encryption of secrets at rest (R-CFG-05; docs/configuration.md `SKILLGATE_SECRET_KEY`):
 * AES-256-GCM from node:crypto, a random 12-byte IV per value, the 16-byte tag verified on
 * decryption. Stored form: `v1:<iv base64>:<tag base64>:<ciphertext base64>`.
 *
 * An optional associated-data string binds a ciphertext to where it is stored (e.g. role,
 * skill and parameter name), so a value copied to another row does not decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A stored secret could not be decrypted: a different key, another row's value, or corruption. */
export class SecretDecryptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretDecryptError';
  }
}

function checkKey(key: Buffer): void {
  if (!Buffer.isBuffer(key) || key.length !== 32) {
    throw new TypeError(`the secret key must be 32 bytes, got ${Buffer.isBuffer(key) ? key.length : typeof key}`);
  }
}

/**
 * Encrypt `plaintext` (UTF-8) with `key` (32 bytes).
 * @param aad associated data that must be given again to decrypt (not stored).
 * @returns `v1:<iv>:<tag>:<ciphertext>`, each part base64.
 * @throws TypeError when `key` is not 32 bytes.
 */
export function encryptSecret(key: Buffer, plaintext: string, aad?: string): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString('base64'), tag.toString('base64'), ct.toString('base64')].join(':');
}

/** True when `stored` has the shape {@link encryptSecret} produces. */
export function isEncryptedValue(stored: string): boolean {
  return /^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]*$/.test(stored);
}

/**
 * Decrypt a value made by {@link encryptSecret} with the same `key` and `aad`.
 * @throws SecretDecryptError on a malformed value, a different key or aad, or tampering
 *   (GCM tag check) — never returns garbage. The message holds no secret material.
 * @throws TypeError when `key` is not 32 bytes.
 */
export function decryptSecret(key: Buffer, stored: string, aad?: string): string {
  checkKey(key);
  const parts = stored.split(':');
  if (parts.length !== 4 || parts[0] !== VERSION || !isEncryptedValue(stored)) {
    throw new SecretDecryptError('a stored secret is not in the v1 encrypted format (corrupt or written by another program)');
  }
  const iv = Buffer.from(parts[1]!, 'base64');
  const tag = Buffer.from(parts[2]!, 'base64');
  const ct = Buffer.from(parts[3]!, 'base64');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new SecretDecryptError('a stored secret is not in the v1 encrypted format (bad IV or tag length)');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptError(
      'cannot decrypt a stored secret: the secret key (SKILLGATE_SECRET_KEY or <data>/secret.key) differs from the one it was saved with, or the stored value was altered',
    );
  }
}
