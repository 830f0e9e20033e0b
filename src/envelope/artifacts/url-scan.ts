/**
 * Finding remote links in a result (R-ART-03, R-ART-04, R-ART-07, A-14).
 *
 * - explicit fields (downloaded unconditionally): {@link EXPLICIT_URL_FIELDS}, values a string
 *   or a string array; also http(s) items and item `url`s inside `images[]`, `videos[]`,
 *   `files[]`, `audios[]` (the array already says the link is a file);
 * - ambiguous fields ({@link AMBIGUOUS_URL_FIELDS}, only when the value is an http(s) URL) and
 *   links inside body text ({@link BODY_TEXT_FIELDS}) are probed first.
 *
 * The walk covers the top level and nested objects/arrays (e.g. `data.image_url`) down to
 * {@link MAX_DEPTH}. An object that carries a `local_path` which exists is an entry already
 * materialised: its own URL fields are skipped (R-ART-07). The platform's own `artifacts` and
 * `artifact_errors` are never scanned.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { MediaKind } from '../../runtime/types.ts';
import { ARRAY_MEDIA, isMediaKind } from './media.ts';

/** Fields whose values are downloaded unconditionally (R-ART-03). */
export const EXPLICIT_URL_FIELDS: readonly string[] = [
  'urls',
  'image_url',
  'image_urls',
  'video_url',
  'video_urls',
  'audio_url',
  'audio_urls',
  'file_url',
  'file_urls',
  'output_url',
  'result_url',
  'oss_url',
  'cdn_url',
  'download_url',
  'abs_url',
];

/** Fields probed for their Content-Type first (R-ART-04). */
export const AMBIGUOUS_URL_FIELDS: readonly string[] = ['url', 'link', 'href', 'src', 'image', 'video', 'audio', 'file'];

/** String fields whose text is searched for http(s) links (R-ART-04 "links in the body"). */
export const BODY_TEXT_FIELDS: readonly string[] = [
  'display_md',
  'message',
  'text',
  'output',
  'result',
  'content',
  'summary',
  'answer',
  'reply',
];

/** Keys the platform adds itself; never scanned. */
const PLATFORM_KEYS = new Set(['artifacts', 'artifact_errors']);

/** How deep nested objects are walked (the top level is depth 0). */
export const MAX_DEPTH = 4;

/** One link to materialise. */
export interface UrlCandidate {
  url: string;
  /** `explicit` ⇒ downloaded unconditionally; `probe` ⇒ Content-Type probed first. */
  kind: 'explicit' | 'probe';
  /** Media implied by where the link was (`image_url`, `images[]`, …). */
  media?: MediaKind;
  /** File name declared next to the link (an `images[]` item's `filename`). */
  filename?: string;
  /** Where it was found, e.g. `data.image_url` or `display_md`. */
  where: string;
}

/** A parsed http(s) URL string (trimmed), or `undefined`. */
export function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const s = value.trim();
  if (!/^https?:\/\//i.test(s)) return undefined;
  try {
    return new URL(s).href;
  } catch {
    return undefined;
  }
}

const LINK = /https?:\/\/[^\s<>"'`()[\]{}，。；！？、（）【】《》「」]+/gi;

/** Body text is scanned in windows of about this many UTF-16 units, one event-loop turn each. */
const WINDOW = 65_536;

/** Consecutive slices of `text`, each about {@link WINDOW} long and ending after whitespace, which no link spans. */
function* windows(text: string): Generator<string> {
  const space = /\s/g;
  for (let start = 0; start < text.length; ) {
    space.lastIndex = start + WINDOW;
    const end = start + WINDOW < text.length && space.exec(text) ? space.lastIndex : text.length;
    yield text.slice(start, end);
    start = end;
  }
}

/** Add the links of `window` to `out`; a link text already in `seen` is not parsed again. */
function collectLinks(window: string, seen: Set<string>, out: Set<string>): void {
  for (const m of window.matchAll(LINK)) {
    if (seen.has(m[0])) continue;
    seen.add(m[0]);
    const url = httpUrl(m[0].replace(/[.,;:!?]+$/, ''));
    if (url !== undefined) out.add(url);
  }
}

/**
 * The distinct http(s) links inside free text (markdown included), in order of first
 * appearance: stops at whitespace, quotes, brackets and CJK punctuation; trailing `.,;:!?`
 * are dropped. A link written many times is parsed once (a long report repeats its links).
 */
export function linksInText(text: string): string[] {
  const seen = new Set<string>();
  const out = new Set<string>();
  for (const w of windows(text)) collectLinks(w, seen, out);
  return [...out];
}

/** {@link linksInText}, yielding to the event loop between windows (a 1 M-character display_md). */
async function linksInTextYielding(text: string): Promise<string[]> {
  const seen = new Set<string>();
  const out = new Set<string>();
  let first = true;
  for (const w of windows(text)) {
    if (!first) await new Promise<void>((r) => setImmediate(r));
    first = false;
    collectLinks(w, seen, out);
  }
  return [...out];
}

function mediaOfField(field: string): MediaKind | undefined {
  const m = /^(image|video|audio|file)(?:_urls?)?$/.exec(field);
  return m ? (m[1] as MediaKind) : undefined;
}

async function existingLocalPath(obj: Record<string, unknown>, workspaceDir: string): Promise<boolean> {
  const p = obj.local_path;
  if (typeof p !== 'string' || p.trim() === '' || /^[a-z][a-z0-9+.-]*:\/\//i.test(p)) return false;
  try {
    return (await stat(path.resolve(workspaceDir, p))).isFile();
  } catch {
    return false;
  }
}

/**
 * Every link of `result` to materialise, de-duplicated by URL (explicit wins over probe),
 * explicit ones first, each group in document order. Never throws.
 */
export async function scanUrls(result: Record<string, unknown>, workspaceDir: string): Promise<UrlCandidate[]> {
  const found: UrlCandidate[] = [];

  async function visit(obj: Record<string, unknown>, prefix: string, depth: number, arrayMedia?: MediaKind): Promise<void> {
    const covered = await existingLocalPath(obj, workspaceDir);
    const itemFilename = arrayMedia !== undefined && typeof obj.filename === 'string' ? obj.filename : undefined;
    const itemMedia = arrayMedia !== undefined ? (isMediaKind(obj.media) ? obj.media : arrayMedia) : undefined;
    for (const [key, value] of Object.entries(obj)) {
      if (depth === 0 && PLATFORM_KEYS.has(key)) continue;
      const where = prefix === '' ? key : `${prefix}.${key}`;
      if (EXPLICIT_URL_FIELDS.includes(key)) {
        if (covered) continue;
        const values = Array.isArray(value) ? value : [value];
        for (const v of values) {
          const url = httpUrl(v);
          if (url !== undefined)
            found.push({ url, kind: 'explicit', media: itemMedia ?? mediaOfField(key), filename: itemFilename, where });
        }
        continue;
      }
      if (AMBIGUOUS_URL_FIELDS.includes(key) && typeof value === 'string') {
        const url = httpUrl(value);
        if (url !== undefined && !covered) {
          found.push(
            arrayMedia !== undefined
              ? { url, kind: 'explicit', media: itemMedia, filename: itemFilename, where }
              : { url, kind: 'probe', media: mediaOfField(key), where },
          );
        }
        if (url !== undefined) continue;
      }
      if (BODY_TEXT_FIELDS.includes(key) && typeof value === 'string') {
        for (const url of await linksInTextYielding(value)) found.push({ url, kind: 'probe', where });
        continue;
      }
      if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') continue;
      if (Array.isArray(value)) {
        const media = ARRAY_MEDIA[key];
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          const itemWhere = `${where}[${i}]`;
          const url = media !== undefined ? httpUrl(item) : undefined;
          if (url !== undefined) found.push({ url, kind: 'explicit', media, where: itemWhere });
          else if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
            await visit(item as Record<string, unknown>, itemWhere, depth + 1, media);
          }
        }
      } else {
        await visit(value as Record<string, unknown>, where, depth + 1);
      }
    }
  }

  await visit(result, '', 0);
  const byUrl = new Map<string, UrlCandidate>();
  for (const c of found) {
    const prev = byUrl.get(c.url);
    if (prev === undefined || (prev.kind === 'probe' && c.kind === 'explicit')) byUrl.set(c.url, c);
  }
  const unique = [...byUrl.values()];
  return [...unique.filter((c) => c.kind === 'explicit'), ...unique.filter((c) => c.kind === 'probe')];
}
