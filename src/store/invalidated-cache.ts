/**
 * Per-process caches of rows that change rarely (skill parameters, directory lookups), kept
 * true across replicas: every writer announces a change on a notification channel
 * ({@link announceChange}), every process's cache on that channel drops everything when it
 * hears one, and a short time-to-live bounds what a lost notification could leave stale
 * (docs/pipeline.md "Caches").
 */
import type { Db, Queryable } from './db.ts';

/** Notification channel of skill parameter writes (`skillgate.skill_config`). */
export const SKILL_CONFIG_CHANNEL = 'skillgate_skill_config';
/** Notification channel of directory writes (contacts, their channel ids). */
export const DIRECTORY_CHANNEL = 'skillgate_directory';

/** A cache of values by string key. */
export interface InvalidatedCache<V> {
  /** The cached value of `key`, else `load()`'s (cached when it resolves; a rejection is not). */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** Drop every entry. */
  clear(): void;
  /** Stop listening; later `get`s load every time. */
  close(): Promise<void>;
}

/** Options of {@link createInvalidatedCache}. */
export interface InvalidatedCacheOptions {
  /** Entry lifetime, ms (default 10 000). */
  ttlMs?: number;
  /** Most entries kept; past it the oldest go (default 10 000). */
  max?: number;
  /** Clock, epoch ms (tests). */
  now?: () => number;
}

/**
 * A cache over `db` that empties on every notification on `channel`. Until the LISTEN is in
 * place (and when it failed) nothing is cached, so no change is ever missed.
 * @throws never: a failed LISTEN leaves the cache off.
 */
export async function createInvalidatedCache<V>(db: Db, channel: string, opts: InvalidatedCacheOptions = {}): Promise<InvalidatedCache<V>> {
  const ttlMs = opts.ttlMs ?? 10_000;
  const max = opts.max ?? 10_000;
  const now = opts.now ?? Date.now;
  const entries = new Map<string, { value: Promise<V>; until: number }>();
  let unlisten: (() => Promise<void>) | null = null;
  // A load that began before a change is not kept after it: its entry goes with the rest.
  const clear = (): void => entries.clear();
  try {
    unlisten = await db.listen(channel, clear);
  } catch {
    unlisten = null;
  }
  return {
    async get(key, load) {
      if (!unlisten) return load();
      const hit = entries.get(key);
      if (hit && hit.until > now()) return hit.value;
      const value = load();
      entries.set(key, { value, until: now() + ttlMs });
      if (entries.size > max) entries.delete(entries.keys().next().value as string);
      try {
        return await value;
      } catch (err) {
        if (entries.get(key)?.value === value) entries.delete(key);
        throw err;
      }
    },
    clear,
    async close() {
      const off = unlisten;
      unlisten = null;
      clear();
      await off?.().catch(() => undefined);
    },
  };
}

/**
 * Tell every process's caches on `channel` that its rows changed. Call after the write is
 * committed, with the Db (a transaction client cannot notify; pass nothing then and announce
 * after the commit). A failure is swallowed: the time-to-live still bounds staleness.
 */
export async function announceChange(q: Queryable | Db, channel: string): Promise<void> {
  const db = q as Partial<Db>;
  if (typeof db.notify !== 'function') return;
  await db.notify(channel, '').catch(() => undefined);
}
