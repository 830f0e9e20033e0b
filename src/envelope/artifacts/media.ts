/**
 * Media kinds of artifacts (spec 000 §6.3; R-ART-01, A-06): from an explicit `media`, the
 * array an item was declared in, a Content-Type, or the file extension (mime-types).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import mime from 'mime-types';
import type { MediaKind } from '../../runtime/types.ts';

/** The four media kinds (spec 000 §6.3). */
export const MEDIA_KINDS: readonly MediaKind[] = ['image', 'video', 'audio', 'file'];

/** The artifact arrays of R-ART-01 and the media each implies. */
export const ARRAY_MEDIA: Readonly<Record<string, MediaKind>> = {
  images: 'image',
  videos: 'video',
  audios: 'audio',
  files: 'file',
};

/** True for one of {@link MEDIA_KINDS}. */
export function isMediaKind(value: unknown): value is MediaKind {
  return typeof value === 'string' && (MEDIA_KINDS as readonly string[]).includes(value);
}

/** `image/*` → image, `video/*` → video, `audio/*` → audio, anything else → file. */
export function mediaFromMime(type: string | false | undefined): MediaKind {
  const major = typeof type === 'string' ? type.split('/')[0]?.trim().toLowerCase() : undefined;
  return major === 'image' || major === 'video' || major === 'audio' ? major : 'file';
}

/**
 * The media of a file: a valid explicit `hint` wins, then the file extension
 * (`report.png` → image), else `file`.
 */
export function inferMedia(filename: string, hint?: unknown): MediaKind {
  if (isMediaKind(hint)) return hint;
  return mediaFromMime(mime.lookup(filename));
}

/**
 * A-06: a stdout line that names an existing file — an absolute path, or a path relative to
 * `workspaceDir` — with a known media/file extension (one mime-types knows) becomes
 * `{local_path, media}`; anything else → `null`. Does not confine the path: the artifact stage
 * refuses paths outside the workspace.
 */
export async function parseMediaPathLine(
  line: string,
  workspaceDir: string,
): Promise<{ local_path: string; media: MediaKind } | null> {
  const text = line.trim();
  if (text === '' || text.includes('\0') || /^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return null;
  if (mime.lookup(text) === false) return null;
  const full = path.isAbsolute(text) ? text : path.resolve(workspaceDir, text);
  try {
    if (!(await stat(full)).isFile()) return null;
  } catch {
    return null;
  }
  return { local_path: full, media: inferMedia(full) };
}
