/**
 * Workspace confinement for artifacts (paths confined to the workspace; R-FILE-02).
 */
import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';

/** The real path of `p`, or `undefined` when it does not exist / cannot be resolved. */
export async function realOrUndefined(p: string): Promise<string | undefined> {
  try {
    return await realpath(p);
  } catch {
    return undefined;
  }
}

/**
 * {@link realOrUndefined} in one system call on the calling thread: for the workspace root,
 * resolved at every call, where a round trip through the thread pool costs more than the call.
 */
export function realOrUndefinedSync(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/** True when the real path `child` is `root` itself or lies below it (both already real). */
export function isInside(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Real paths of workspace folders resolved in this process, oldest first (bounded). */
const realDirs = new Map<string, string>();
const REAL_DIRS_MAX = 4096;

/**
 * The real path of the folder `dir` as first resolved in this process, without a system call
 * after the first time (a workspace folder is resolved at every skill call); `undefined` when it
 * does not exist (nothing is remembered then). {@link forgetRealDir} after re-creating a folder.
 */
export function realDirRemembered(dir: string): string | undefined {
  const hit = realDirs.get(dir);
  if (hit !== undefined) return hit;
  const real = realOrUndefinedSync(dir);
  if (real === undefined) return undefined;
  realDirs.set(dir, real);
  if (realDirs.size > REAL_DIRS_MAX) realDirs.delete(realDirs.keys().next().value as string);
  return real;
}

/** Drop what {@link realDirRemembered} holds for `dir`. */
export function forgetRealDir(dir: string): void {
  realDirs.delete(dir);
}
