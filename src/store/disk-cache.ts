/**
 * The install's own disk caches, `node_modules/.cache/skillgate/<name>/`: content-addressed
 * files a later start reads instead of redoing the work (parses, compiled handlers;
 * docs/performance.md "Start-up"). A cache that cannot be written (a read-only install) only
 * means doing the work again.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The absolute folder of the cache `name`. Pure: creates nothing. */
export function diskCacheDir(name: string): string {
  return fileURLToPath(new URL(`../../node_modules/.cache/skillgate/${name}/`, import.meta.url));
}

/**
 * Write `data` as `dir/file` atomically (a temporary file renamed: a reader never sees half a
 * file), creating `dir`. @returns false when it could not be written. Never throws.
 */
export function writeCacheFile(dir: string, file: string, data: string | Buffer): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    const target = join(dir, file);
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, data);
    renameSync(tmp, target);
    return true;
  } catch {
    return false;
  }
}
