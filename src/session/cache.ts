/**
 * In-process caches of the per-message session reads bench: a turn read its session
 * twice and its attachment list three times). Entries are per Db object, so two gateways of one
 * process never share them; a Tx is never cached through (it may see its own uncommitted rows).
 *
 * Attachment lists stay exact:
 * - in this process `registerAttachment` bumps the session's generation (any Db, any Tx), and a
 *   list read while a bump happened is not stored;
 * - across processes (server engine) the registering INSERT itself calls
 *   `pg_notify('skillgate_attachments', session_id)`, delivered at commit; each cache LISTENs
 *   and drops the session. Until the LISTEN is in place nothing is cached for that Db.
 * Session records: a stored session never changes but `last_active_at` (and nothing deletes
 * one), so a cached record is reused and `last_active_at` refreshed at most every
 * {@link SESSION_TOUCH_MS}. Code that ever deletes or changes sessions must drop this cache.
 */
import type { Db, Queryable } from '../store/db.ts';

/** How long a cached session record is reused before `last_active_at` is written again, ms. */
export const SESSION_TOUCH_MS = 60_000;
/** The NOTIFY channel of attachment registrations (payload: the session id). */
export const ATTACHMENTS_CHANNEL = 'skillgate_attachments';
/** Most sessions kept per Db (oldest dropped first). */
const MAX_ENTRIES = 10_000;

interface PerDb {
  /** false until LISTEN is active on a server (nothing is cached before). */
  ready: boolean;
  /** Settles when `ready` is final (true, or false after LISTEN failed). */
  settled: Promise<void>;
  sessions: Map<string, { value: unknown; at: number }>;
  /** Lists by session id, with the registration tick they were read at. */
  attachments: Map<string, { at: number; list: unknown[] }>;
}

const perDb = new WeakMap<object, PerDb>();
/** A counter of registrations seen in this process (any Db). */
let tick = 0;
/** The tick of the last registration per session id; `floor` covers the ids dropped from it. */
const lastChange = new Map<string, number>();
let floor = 0;

function isDb(q: Queryable): q is Db {
  return typeof (q as Partial<Db>).listen === 'function' && typeof (q as Partial<Db>).engine === 'string';
}

/** The caches of a Db (created on first use; a server's starts its LISTEN), undefined for a Tx. */
function entryOf(q: Queryable): PerDb | undefined {
  if (!isDb(q)) return undefined;
  let c = perDb.get(q);
  if (!c) {
    c = { ready: q.engine === 'embedded', settled: Promise.resolve(), sessions: new Map(), attachments: new Map() };
    perDb.set(q, c);
    if (q.engine === 'server') {
      const entry = c;
      entry.settled = q
        .listen(ATTACHMENTS_CHANNEL, (sessionId) => {
          bump(sessionId);
          entry.attachments.delete(sessionId);
        })
        .then(() => void (entry.ready = true))
        .catch(() => undefined); // stays uncached: every read goes to the database
    }
  }
  return c;
}

/** The caches of a Db whose attachment lists may be cached (invalidation in place). */
function cacheOf(q: Queryable): PerDb | undefined {
  const c = entryOf(q);
  return c?.ready ? c : undefined;
}

function put<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value!);
}

function bump(sessionId: string): void {
  lastChange.delete(sessionId);
  lastChange.set(sessionId, ++tick);
  if (lastChange.size > MAX_ENTRIES) {
    const [oldest, at] = lastChange.entries().next().value!;
    lastChange.delete(oldest);
    floor = Math.max(floor, at);
  }
}

const changedAt = (sessionId: string): number => lastChange.get(sessionId) ?? floor;

/**
 * Start the caches of `db` and wait until they are in use (on a server: LISTEN active).
 * @returns false when they stay off (LISTEN failed; every read then goes to the database)
 */
export async function cacheReady(db: Db): Promise<boolean> {
  const c = entryOf(db)!;
  await c.settled;
  return c.ready;
}

/** An attachment of `sessionId` was registered (or may be, inside a transaction): drop its lists. */
export function attachmentsChanged(sessionId: string): void {
  bump(sessionId);
}

/**
 * The cached attachment list of `sessionId` on `q`, or the result of `load` (stored when no
 * registration of the session happened while it ran). A Tx always loads.
 */
export async function cachedAttachments<T>(q: Queryable, sessionId: string, load: () => Promise<T[]>): Promise<T[]> {
  const c = cacheOf(q);
  if (!c) return load();
  const hit = c.attachments.get(sessionId);
  if (hit && changedAt(sessionId) <= hit.at) return [...(hit.list as T[])];
  const at = tick;
  const list = await load();
  if (changedAt(sessionId) <= at) put(c.attachments, sessionId, { at, list: [...list] });
  return list;
}

/** A cached session record of `id` on `q` younger than {@link SESSION_TOUCH_MS}, or undefined. */
export function cachedSession<T>(q: Queryable, id: string, nowMs: number): T | undefined {
  const hit = entryOf(q)?.sessions.get(id); // needs no invalidation: usable before LISTEN
  return hit && nowMs - hit.at < SESSION_TOUCH_MS ? (hit.value as T) : undefined;
}

/** Remember the session record `id` just read or written on `q`. */
export function rememberSession(q: Queryable, id: string, value: unknown, nowMs: number): void {
  const c = entryOf(q);
  if (c) put(c.sessions, id, { value, at: nowMs });
}
