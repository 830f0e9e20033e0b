/**
 * Fallback artifact collection (R-ART-09, R-ART-10, A-13, D-21): files a
 * skill wrote into the workspace root without declaring them. Only the root is scanned — a
 * sub-folder is the documented place for intermediate files — and script/log/temp files are
 * excluded unless the user explicitly asked for a script in this turn.
 */
import { lstatSync, readdirSync, statSync, type BigIntStats, type Dirent, type Stats } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import { inferMedia } from './media.ts';
import type { DirStamp, FoundArtifact, Snapshot } from './model.ts';
import { isInside, realOrUndefined, realOrUndefinedSync } from './paths.ts';

/** Extensions never collected by the fallback (R-ART-09), unless `allowScripts`. */
export const EXCLUDED_EXTENSIONS: readonly string[] = ['.py', '.js', '.sh', '.log', '.tmp', '.srt', '.pyc'];

/**
 * Up to this many root entries are stat-ed on the calling thread (a few microseconds each,
 * less than one thread-pool round trip); a larger root goes through the thread pool so a
 * crowded workspace never holds the event loop.
 */
const SYNC_ENTRIES = 64;

/** The root's entry names (one directory read on the calling thread), or undefined when unreadable. */
function rootNames(real: string): string[] | undefined {
  try {
    return readdirSync(real);
  } catch {
    return undefined;
  }
}

/** The root's entries with their types (one directory read), or undefined when unreadable. */
function rootEntries(real: string): Dirent[] | undefined {
  try {
    return readdirSync(real, { withFileTypes: true });
  } catch {
    return undefined;
  }
}

/** `stat` (or `lstat`) of an entry: on the calling thread when the root is small. */
function statOf(full: string, small: boolean, link = false): Stats | Promise<Stats> {
  if (small) return link ? lstatSync(full) : statSync(full);
  return link ? lstat(full) : stat(full);
}

/**
 * How long (ms) the root must have been left alone before its stamp may stand for its listing.
 * A change lands in the folder's mtime / ctime at the file system's granularity: a folder
 * changed within this window could change again without a new stamp, so it is listed again
 * after the call. {@link SETTLE_MS} when its times are whole seconds (file systems of 1–2 s
 * granularity), else {@link SETTLE_FINE_MS} (sub-second times: at most a kernel tick or 10 ms).
 */
export const SETTLE_MS = 2000;
/** See {@link SETTLE_MS}. */
export const SETTLE_FINE_MS = 100;
const SECOND_NS = 1_000_000_000n;

/** The settle window of a folder with these times, ms (see {@link SETTLE_MS}). */
function settleMs(st: BigIntStats): number {
  return st.ctimeNs % SECOND_NS === 0n || st.mtimeNs % SECOND_NS === 0n ? SETTLE_MS : SETTLE_FINE_MS;
}

/** Stamps of roots last listed holding sub-folders (or nothing) only, by real path (bounded). */
const settledRoots = new Map<string, DirStamp>();
const SETTLED_ROOTS_MAX = 4096;

/** One `stat` of the root folder (undefined when it cannot be read or is not a folder). */
function rootStat(real: string): BigIntStats | undefined {
  try {
    const st = statSync(real, { bigint: true, throwIfNoEntry: false });
    return st?.isDirectory() ? st : undefined;
  } catch {
    return undefined;
  }
}

function sameStamp(st: BigIntStats, s: DirStamp): boolean {
  return st.ctimeNs === s.ctimeNs && st.mtimeNs === s.mtimeNs && st.ino === s.ino && st.dev === s.dev;
}

/** Options of {@link snapshotWorkspace}. */
export interface SnapshotOptions {
  /** `dir` is already its own real path (not resolved again). */
  real?: boolean;
  /** The wall clock, epoch ms (tests). Default `Date.now`. */
  now?: () => number;
}

/**
 * Snapshot the workspace root before a call: every root entry that is not a dotfile,
 * with its size (bytes) and mtime (ms) — symlinks followed. A missing workspace → empty.
 * `opts.real`: `dir` is already its own real path (not resolved again). Never throws.
 *
 * A root holding nothing but dotfiles and plain sub-folders, untouched for its settle window,
 * gets a `settled` stamp (its folder's device, inode, mtime and ctime in ns): no entry of it can
 * become a new or changed file without a change of that stamp (a name is added, removed or
 * renamed only through the folder), so {@link collectNewFiles} compares the stamp instead of
 * listing the root again, and the next snapshot of the same unchanged root reuses this listing.
 */
export async function snapshotWorkspace(dir: string, opts: SnapshotOptions = {}): Promise<Snapshot> {
  const real = opts.real ? dir : (realOrUndefinedSync(dir) ?? path.resolve(dir));
  // The clock is read before the stat and the stat taken before the listing: a change racing
  // either one leaves a stamp older than what was listed, which only costs a listing later.
  const now = (opts.now ?? Date.now)();
  const st = rootStat(real);
  const known = settledRoots.get(real);
  if (st && known && sameStamp(st, known)) return { dir: real, files: {}, settled: known };
  const files: Snapshot['files'] = {};
  const entries = rootEntries(real);
  if (entries === undefined) {
    settledRoots.delete(real);
    return { dir: real, files, missing: true };
  }
  const small = entries.length <= SYNC_ENTRIES;
  let foldersOnly = true;
  for (const entry of entries) {
    const name = entry.name;
    if (name.startsWith('.')) continue;
    // A plain folder is never a file (its type cannot change in place); anything else is stat-ed.
    if (entry.isDirectory()) continue;
    foldersOnly = false;
    try {
      const fst = await statOf(path.join(real, name), small);
      if (fst.isFile()) files[name] = { size: fst.size, mtimeMs: fst.mtimeMs };
    } catch {
      // dangling symlink or vanished file: nothing to compare against
    }
  }
  const changedMs = st ? Math.max(Number(st.ctimeMs), Number(st.mtimeMs)) : Number.POSITIVE_INFINITY;
  if (!st || !foldersOnly || changedMs > now - settleMs(st)) {
    settledRoots.delete(real);
    return { dir: real, files };
  }
  const settled: DirStamp = { dev: st.dev, ino: st.ino, mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs };
  settledRoots.delete(real);
  settledRoots.set(real, settled);
  if (settledRoots.size > SETTLED_ROOTS_MAX) settledRoots.delete(settledRoots.keys().next().value as string);
  return { dir: real, files, settled };
}

/** Options of {@link collectNewFiles}. */
export interface CollectOptions {
  /** The user explicitly asked for a script in this turn: keep .py/.js/.sh/… (R-ART-09). */
  allowScripts?: boolean;
}

/**
 * Files in the workspace ROOT that are new or changed (size or mtime) since `before`
 * (R-ART-09/10, A-13). Sub-folders are never entered (D-21); dotfiles, non-regular files,
 * symlinks whose target lies outside the workspace, and {@link EXCLUDED_EXTENSIONS} (unless
 * `allowScripts`) are skipped. Sorted by file name.
 * @returns artifacts with origin `collected`; `local_path` = the real path. Never throws.
 */
export async function collectNewFiles(dir: string, before: Snapshot, opts: CollectOptions = {}): Promise<FoundArtifact[]> {
  // `before.dir` is the real path the snapshot resolved: no second resolution of the same root.
  const root = dir === before.dir ? dir : realOrUndefinedSync(dir);
  if (root === undefined) return [];
  if (before.settled && root === before.dir) {
    // Unchanged folder with sub-folders only, as before the call: nothing new (see snapshotWorkspace).
    const st = rootStat(root);
    if (st && sameStamp(st, before.settled)) return [];
  }
  const names = rootNames(root);
  if (names === undefined) return [];
  const small = names.length <= SYNC_ENTRIES;
  const out: FoundArtifact[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    if (!opts.allowScripts && EXCLUDED_EXTENSIONS.includes(path.extname(name).toLowerCase())) continue;
    const full = path.join(root, name);
    try {
      const link = await statOf(full, small, true);
      let real = full;
      if (link.isSymbolicLink()) {
        const target = await realOrUndefined(full);
        if (target === undefined || !isInside(root, target)) continue;
        real = target;
      }
      const st = await statOf(real, small);
      if (!st.isFile()) continue;
      const prev = before.files[name];
      if (prev && prev.size === st.size && prev.mtimeMs === st.mtimeMs) continue;
      out.push({ filename: name, local_path: real, real_path: real, media: inferMedia(name), origin: 'collected' });
    } catch {
      // vanished between readdir and stat
    }
  }
  return out;
}
