/**
 * Media kind of a file from its name or MIME type, using
 * the `mime-types` database.
 */
import type { MediaKind } from '../runtime/types.ts';
import { mimeTypes } from '../config/lazy-packages.ts';

/** `type/subtype`, optionally with parameters. */
const MIME_SHAPE = /^[a-z]+\/[a-z0-9][a-z0-9!#$&^_.+-]*\s*(;.*)?$/i;

function kindOfMime(type: string): MediaKind {
  const top = type.trim().toLowerCase().split('/')[0];
  return top === 'image' || top === 'video' || top === 'audio' ? top : 'file';
}

/**
 * `image` | `video` | `audio` | `file` for a file name (or path) or a MIME type.
 *
 * A value is read as a MIME type when `mime-types` knows it (`image/png`), or when it has the
 * `type/subtype` shape and no known file extension (`image/x-custom`); otherwise as a file name
 * whose extension is looked up (`报销单.pdf` → file, `a.JPG` → image). Unknown → `file`.
 */
export function mediaKindOf(filenameOrMime: string): MediaKind {
  const v = filenameOrMime.trim();
  if (v === '') return 'file';
  if (mimeTypes().extension(v) !== false) return kindOfMime(v);
  const looked = mimeTypes().lookup(v);
  if (looked === false && MIME_SHAPE.test(v)) return kindOfMime(v);
  return looked === false ? 'file' : kindOfMime(looked);
}
