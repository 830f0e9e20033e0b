/**
 * Media kinds of artifacts (R-ART-01, A-06): from an explicit `media`, the
 * array an item was declared in, a Content-Type, or the file extension (mime-types).
 */
import type { MediaKind } from '../../runtime/types.ts';
import { mimeTypes } from '../../config/lazy-packages.ts';

/** The four media kinds. */
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
  return mediaFromMime(mimeTypes().lookup(filename));
}
