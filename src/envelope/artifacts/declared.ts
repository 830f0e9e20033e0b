/**
 * Artifacts declared in a result (R-ART-01): the single top-level shape
 * `{filename, local_path, media}` and the arrays `images[]`, `videos[]`, `files[]`, `audios[]`,
 * whose items are paths (strings) or objects `{local_path, filename?, media?, url?}`.
 * Remote URLs in these places are left to the URL step (url-fetch.ts).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { MediaKind } from '../../runtime/types.ts';
import { ARRAY_MEDIA, inferMedia, isMediaKind } from './media.ts';
import { text } from './messages.ts';
import type { ArtifactError, ArtifactLang, ArtifactLog, FoundArtifact } from './model.ts';
import { isInside, realOrUndefined } from './paths.ts';

/** True for a string that looks like a remote URL rather than a path. */
export function looksLikeUrl(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim());
}

/** One declaration as written in the result, before it is checked on disk. */
export interface Declaration {
  /** The path as the skill wrote it. */
  path: string;
  filename?: string;
  /** Explicit `media`, else the array's media. */
  media?: MediaKind;
  /** Where it was declared, e.g. `local_path` or `images[2]`. */
  where: string;
  /** The entry also carries an http(s) `url` (the URL step materialises it when the file is missing). */
  hasUrl?: boolean;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * The declarations of `result` (R-ART-01), in order: the top-level `local_path` first, then
 * `images`, `videos`, `files`, `audios`. Remote URLs are not declarations. Pure.
 */
export function listDeclarations(result: Record<string, unknown>): Declaration[] {
  const out: Declaration[] = [];
  const top = str(result.local_path);
  if (top !== undefined && !looksLikeUrl(top)) {
    out.push({
      path: top,
      filename: str(result.filename),
      media: isMediaKind(result.media) ? result.media : undefined,
      where: 'local_path',
    });
  }
  for (const [field, arrayMedia] of Object.entries(ARRAY_MEDIA)) {
    const list = result[field];
    if (!Array.isArray(list)) continue;
    list.forEach((item: unknown, i) => {
      const where = `${field}[${i}]`;
      if (typeof item === 'string') {
        if (item.trim() !== '' && !looksLikeUrl(item)) out.push({ path: item, media: arrayMedia, where });
        return;
      }
      if (typeof item !== 'object' || item === null) return;
      const rec = item as Record<string, unknown>;
      const p = str(rec.local_path);
      if (p === undefined || looksLikeUrl(p)) return;
      out.push({
        path: p,
        filename: str(rec.filename),
        media: isMediaKind(rec.media) ? rec.media : arrayMedia,
        where,
        hasUrl: typeof rec.url === 'string' && /^https?:\/\//i.test(rec.url.trim()),
      });
    });
  }
  return out;
}

/** Options of {@link declaredArtifacts}. */
export interface DeclaredOptions {
  /** Real path of the session workspace. */
  workspaceDir: string;
  log: ArtifactLog;
  lang?: ArtifactLang;
}

/**
 * Check every declaration on disk: a relative path is resolved against the workspace; the
 * real path must exist, be a regular file and lie inside the workspace. Files outside the
 * workspace are never registered (warning logged + a note); missing ones get a note.
 * `filename` = the declared filename's basename, else the file's basename. Never throws.
 */
export async function declaredArtifacts(
  result: Record<string, unknown>,
  opts: DeclaredOptions,
): Promise<{ artifacts: FoundArtifact[]; errors: ArtifactError[] }> {
  const artifacts: FoundArtifact[] = [];
  const errors: ArtifactError[] = [];
  for (const decl of listDeclarations(result)) {
    const full = path.resolve(opts.workspaceDir, decl.path);
    const real = await realOrUndefined(full);
    if (real === undefined) {
      if (decl.hasUrl) continue; // the URL step downloads it instead
      errors.push({ path: decl.path, error: text('missing', opts.lang) });
      opts.log.warn({ path: decl.path, where: decl.where }, 'declared artifact does not exist');
      continue;
    }
    if (!isInside(opts.workspaceDir, real)) {
      errors.push({ path: decl.path, error: text('outside', opts.lang) });
      opts.log.warn({ path: decl.path, where: decl.where }, 'declared artifact outside the workspace: not registered');
      continue;
    }
    try {
      if (!(await stat(real)).isFile()) throw new Error('not a file');
    } catch {
      errors.push({ path: decl.path, error: text('notFile', opts.lang) });
      continue;
    }
    const filename = decl.filename !== undefined ? path.basename(decl.filename) : path.basename(real);
    artifacts.push({
      filename,
      local_path: real,
      real_path: real,
      media: inferMedia(path.extname(filename) !== '' ? filename : real, decl.media),
      origin: 'declared',
    });
  }
  return { artifacts, errors };
}
