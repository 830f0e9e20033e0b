/**
 * A content-addressed cache of what the TypeScript parser found in a text (a handler file's
 * scan, an entry function's parameter count), Python's (a handler.py scan by
 * `inspect_handler.py`) or yaml's (a SKILL.md frontmatter block), kept on disk so that a start or
 * a `skill run` that has seen the same texts before does not load the 9 MB compiler nor yaml, nor
 * start python3 at all
 * (docs/performance.md "Start-up"). The key covers the text, what it was parsed for, the
 * parser's version and the sources of the code that reads the parse, so an edit of either
 * gives a new key. Files live under `node_modules/.cache/skillgate/parse/`; a cache that cannot
 * be read or written only means parsing again.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { diskCacheDir, writeCacheFile } from '../../store/disk-cache.ts';
import { fileURLToPath } from 'node:url';

const CACHE_DIR = diskCacheDir('parse');

/** The code whose output is cached: a change to any of these files is a new cache. */
const READERS = [
  './js.ts',
  './js-literal.ts',
  './types.ts',
  './parse-cache.ts',
  '../../executor/binder.ts',
  './python.ts',
  './inspect_handler.py',
  '../frontmatter.ts',
];

let salt: string | undefined;

/** Hash of the readers' sources and the parsers' versions (computed once per process). */
function readersSalt(): string {
  if (salt === undefined) {
    const h = createHash('sha256');
    for (const r of READERS) {
      try {
        h.update(readFileSync(fileURLToPath(new URL(r, import.meta.url))));
      } catch {
        h.update(`missing:${r}`);
      }
    }
    for (const pkg of ['typescript', 'yaml']) {
      try {
        h.update(String((createRequire(import.meta.url)(`${pkg}/package.json`) as { version: string }).version));
      } catch {
        h.update(`${pkg}:?`);
      }
    }
    salt = h.digest('hex');
  }
  return salt;
}

/** The cache file of `kind`/`text`. */
function cacheFile(kind: string, text: string): string {
  const key = createHash('sha256').update(readersSalt()).update('\0').update(kind).update('\0').update(text).digest('hex');
  return join(CACHE_DIR, `${key}.json`);
}

/** The stored value of `file`, or `miss`. */
function readCached<T>(file: string): { value: T } | 'miss' {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { value: T };
  } catch {
    return 'miss'; // not cached yet (or unreadable): parse
  }
}

function writeCached(file: string, value: unknown): void {
  writeCacheFile(CACHE_DIR, basename(file), JSON.stringify({ value })); // a read-only install: no cache
}

/**
 * `compute()` of `kind`/`text`, from the disk cache when the same text was parsed before.
 * `compute`'s result must survive JSON (plain objects, arrays, strings, finite numbers, booleans);
 * a value for which `keep(value)` is false is returned but not stored.
 */
export function parseCached<T>(kind: string, text: string, compute: () => T, keep: (value: T) => boolean = () => true): T {
  const file = cacheFile(kind, text);
  const hit = readCached<T>(file);
  if (hit !== 'miss') return hit.value;
  const value = compute();
  if (keep(value)) writeCached(file, value);
  return value;
}

/** {@link parseCached} of an asynchronous `compute`. */
export async function parseCachedAsync<T>(kind: string, text: string, compute: () => Promise<T>, keep: (value: T) => boolean): Promise<T> {
  const file = cacheFile(kind, text);
  const hit = readCached<T>(file);
  if (hit !== 'miss') return hit.value;
  const value = await compute();
  if (keep(value)) writeCached(file, value);
  return value;
}
