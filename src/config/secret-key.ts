/**
 * The key that encrypts secrets at rest (docs/configuration.md): `SKILLGATE_SECRET_KEY`, or in
 * embedded mode a key generated once into `<data>/secret.key` (base64, mode 0600).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeSecretKey, type Settings } from './settings.ts';

/**
 * The 32-byte key for this process.
 * @throws ConfigError when the stored key file is corrupt.
 */
export function resolveSecretKey(settings: Pick<Settings, 'secretKey' | 'dataDir'>): Buffer {
  if (settings.secretKey) return settings.secretKey;
  const file = join(settings.dataDir, 'secret.key');
  if (existsSync(file)) return decodeSecretKey(readFileSync(file, 'utf8').trim(), file);
  mkdirSync(settings.dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
