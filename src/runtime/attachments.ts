/**
 * Normalisation of `runtime_context.attachments` items to the spec shape
 * `{type, att_type, filename, local_path, url}` (R-CTX-05, R-CTX-06).
 */
import { basename } from 'node:path';
import type { AttachmentItem, MediaKind } from './types.ts';

const KIND_ALIASES: Record<string, MediaKind> = {
  image: 'image',
  img: 'image',
  photo: 'image',
  picture: 'image',
  sticker: 'image',
  video: 'video',
  media: 'video',
  animation: 'video',
  audio: 'audio',
  voice: 'audio',
  file: 'file',
  document: 'file',
  doc: 'file',
};

const EXT_KINDS: Record<string, MediaKind> = {
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
  bmp: 'image',
  heic: 'image',
  svg: 'image',
  mp4: 'video',
  mov: 'video',
  webm: 'video',
  mkv: 'video',
  avi: 'video',
  mp3: 'audio',
  wav: 'audio',
  ogg: 'audio',
  oga: 'audio',
  opus: 'audio',
  m4a: 'audio',
  amr: 'audio',
  flac: 'audio',
  aac: 'audio',
};

/** The media kind a file name's extension suggests; "file" when unknown. */
export function kindFromFilename(name: string): MediaKind {
  const m = /\.([A-Za-z0-9]+)$/.exec(name);
  const ext = m ? m[1]!.toLowerCase() : '';
  return Object.hasOwn(EXT_KINDS, ext) ? EXT_KINDS[ext]! : 'file';
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The last path segment of a URL's path, percent-decoded; "" when there is none. */
function urlBasename(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).pop() ?? '';
    return decodeURIComponent(last);
  } catch {
    return '';
  }
}

/**
 * One attachment item in the spec shape, or null when `v` names no file at all.
 *
 * - An object: `type` is taken from `type`, else `att_type`, through a small alias table
 *   (photo → image, voice → audio, document → file …); an unknown or missing kind is
 *   inferred from the file extension, else "file". `att_type` always equals `type`
 *   (R-CTX-06). `filename` falls back to the basename of `local_path`, then of `url`.
 *   Other fields are dropped. An object with no filename, local_path nor url → null.
 * - A string: an `http(s)://` URL or a local path, kind from its extension.
 */
export function normalizeAttachment(v: unknown): AttachmentItem | null {
  let filename = '';
  let local_path = '';
  let url = '';
  let declared = '';
  if (typeof v === 'string') {
    const t = v.trim();
    if (t === '') return null;
    if (/^https?:\/\//i.test(t)) url = t;
    else local_path = t;
  } else if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    filename = str(o.filename).trim();
    local_path = str(o.local_path);
    url = str(o.url);
    declared = (str(o.type) || str(o.att_type)).trim().toLowerCase();
  } else {
    return null;
  }
  if (filename === '') filename = local_path ? basename(local_path) : url ? urlBasename(url) : '';
  if (filename === '' && local_path === '' && url === '') return null;
  const type: MediaKind = Object.hasOwn(KIND_ALIASES, declared) ? KIND_ALIASES[declared]! : kindFromFilename(filename);
  return { type, att_type: type, filename, local_path, url };
}

/** `attachments` as a list of spec-shaped items (non-arrays → [], unusable items dropped). */
export function normalizeAttachments(v: unknown): AttachmentItem[] {
  if (!Array.isArray(v)) return [];
  const out: AttachmentItem[] = [];
  for (const item of v) {
    const a = normalizeAttachment(item);
    if (a) out.push(a);
  }
  return out;
}
