/**
 * Fallback artifact collection (spec 000 §6.3(2)★; R-ART-09, R-ART-10, A-13, D-21): files a
 * skill wrote into the workspace root without declaring them. Only the root is scanned — a
 * sub-folder is the documented place for intermediate files — and script/log/temp files are
 * excluded unless the user explicitly asked for a script in this turn.
 */
import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { inferMedia } from './media.ts';
import type { FoundArtifact, Snapshot } from './model.ts';
import { isInside, realOrUndefined } from './paths.ts';

/** Extensions never collected by the fallback (R-ART-09), unless `allowScripts`. */
export const EXCLUDED_EXTENSIONS: readonly string[] = ['.py', '.js', '.sh', '.log', '.tmp', '.srt', '.pyc'];

/**
 * Snapshot the workspace root before a call: every root entry that is not a dotfile,
 * with its size (bytes) and mtime (ms) — symlinks followed. A missing workspace → empty.
 * Never throws.
 */
export async function snapshotWorkspace(dir: string): Promise<Snapshot> {
  const real = (await realOrUndefined(dir)) ?? path.resolve(dir);
  const files: Snapshot['files'] = {};
  let names: string[];
  try {
    names = await readdir(real);
  } catch {
    return { dir: real, files };
  }
  for (const name of names) {
    if (name.startsWith('.')) continue;
    try {
      const st = await stat(path.join(real, name));
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
  const root = await realOrUndefined(dir);
  if (root === undefined) return [];
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const out: FoundArtifact[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    if (!opts.allowScripts && EXCLUDED_EXTENSIONS.includes(path.extname(name).toLowerCase())) continue;
    const full = path.join(root, name);
    try {
      const link = await lstat(full);
      let real = full;
      if (link.isSymbolicLink()) {
        const target = await realOrUndefined(full);
        if (target === undefined || !isInside(root, target)) continue;
        real = target;
      }
      const st = await stat(real);
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
