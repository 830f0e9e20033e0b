/**
 * Fallback artifact collection (R-ART-09, R-ART-10, A-13, D-21): files a
 * skill wrote into the workspace root without declaring them. Only the root is scanned — a
 * sub-folder is the documented place for intermediate files — and script/log/temp files are
 * excluded unless the user explicitly asked for a script in this turn.
 */
import { lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { lstat, stat } from 'node:fs/promises';
import path from 'node:path';
import { inferMedia } from './media.ts';
import type { FoundArtifact, Snapshot } from './model.ts';
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

/** `stat` (or `lstat`) of an entry: on the calling thread when the root is small. */
function statOf(full: string, small: boolean, link = false): Stats | Promise<Stats> {
  if (small) return link ? lstatSync(full) : statSync(full);
  return link ? lstat(full) : stat(full);
}

/**
 * Snapshot the workspace root before a call: every root entry that is not a dotfile,
 * with its size (bytes) and mtime (ms) — symlinks followed. A missing workspace → empty.
 * `opts.real`: `dir` is already its own real path (not resolved again). Never throws.
 */
export async function snapshotWorkspace(dir: string, opts: { real?: boolean } = {}): Promise<Snapshot> {
  const real = opts.real ? dir : (realOrUndefinedSync(dir) ?? path.resolve(dir));
  const files: Snapshot['files'] = {};
  const names = rootNames(real);
  if (names === undefined) return { dir: real, files, missing: true };
  const small = names.length <= SYNC_ENTRIES;
  for (const name of names) {
    if (name.startsWith('.')) continue;
    try {
      const st = await statOf(path.join(real, name), small);
      if (st.isFile()) files[name] = { size: st.size, mtimeMs: st.mtimeMs };
    } catch {
      // dangling symlink or vanished file: nothing to compare against
    }
  }
  return { dir: real, files };
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
