/**
 * File names of downloaded artifacts: from Content-Disposition
 * (RFC 6266 / RFC 5987 `filename*`), else the URL path's basename, else `download_<n>`; an
 * extension from the Content-Type when the name has none; never overwriting a different file.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, link, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { constants as fsConstants } from 'node:fs';
import { mimeTypes } from '../../config/lazy-packages.ts';

/** Longest file name kept, in code points (extension preserved). */
export const MAX_NAME = 180;

/**
 * A safe file name: basename only (`/` and `\` separators), no control characters, none of
 * `<>:"|?*`, no leading dots (no hidden files), at most {@link MAX_NAME} code points.
 * @returns `undefined` when nothing usable remains.
 */
export function sanitizeFilename(raw: string): string | undefined {
  let name = raw.split(/[\\/]/).pop() ?? '';
  name = name
    .replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '_')
    .trim()
    .replace(/^\.+/, '');
  if (name === '' || /^_+$/.test(name)) return undefined;
  const points = [...name];
  if (points.length > MAX_NAME) {
    const ext = path.extname(name);
    const extPoints = ext.length <= 16 ? [...ext] : [];
    name = points.slice(0, MAX_NAME - extPoints.length).join('') + extPoints.join('');
  }
  return name;
}

function decodeExtValue(value: string): string | undefined {
  // RFC 5987: charset'lang'pct-encoded
  const m = /^([\w!#$%&+^`{}~-]*)'[^']*'(.*)$/.exec(value.trim());
  if (!m) return undefined;
  const charset = (m[1] ?? '').toLowerCase();
  const encoded = m[2] ?? '';
  try {
    if (charset === 'utf-8' || charset === '') return decodeURIComponent(encoded);
    if (charset === 'iso-8859-1') {
      const bytes = encoded.replace(/%([0-9a-f]{2})/gi, (_s, h: string) => String.fromCharCode(parseInt(h, 16)));
      return bytes;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * The file name a Content-Disposition header gives: `filename*` (RFC 5987, UTF-8 or
 * ISO-8859-1) wins over `filename` (quoted or token; a percent-encoded UTF-8 value is decoded
 * as browsers do). Lenient; never throws. @returns the sanitised name or `undefined`.
 */
export function filenameFromContentDisposition(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const params = new Map<string, string>();
  const re = /;\s*([^\s=;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;
  const rest = header.replace(/^[^;]*/, '');
  for (let m = re.exec(rest); m; m = re.exec(rest)) {
    const key = m[1]!.toLowerCase();
    let value = m[2]!.trim();
    if (value.startsWith('"')) value = value.slice(1, -1).replace(/\\(.)/g, '$1');
    if (!params.has(key)) params.set(key, value);
  }
  const ext = params.get('filename*');
  if (ext !== undefined) {
    const decoded = decodeExtValue(ext);
    const name = decoded !== undefined ? sanitizeFilename(decoded) : undefined;
    if (name) return name;
  }
  const plain = params.get('filename');
  if (plain === undefined) return undefined;
  let value = plain;
  if (/%[0-9a-f]{2}/i.test(value)) {
    try {
      value = decodeURIComponent(value);
    } catch {
      // keep it as is
    }
  }
  return sanitizeFilename(value);
}

/** The last non-empty segment of the URL path, percent-decoded and sanitised, or `undefined`. */
export function filenameFromUrl(url: URL): string | undefined {
  const seg = url.pathname
    .split('/')
    .filter((s) => s !== '')
    .pop();
  if (seg === undefined) return undefined;
  let decoded = seg;
  try {
    decoded = decodeURIComponent(seg);
  } catch {
    // keep the raw segment
  }
  return sanitizeFilename(decoded);
}

/** `name` plus the Content-Type's usual extension when it has none (e.g. `chart` + image/png → `chart.png`). */
export function withExtension(name: string, contentType: string | undefined): string {
  if (path.extname(name) !== '' || !contentType) return name;
  const ext = mimeTypes().extension(contentType);
  return ext ? `${name}.${ext}` : name;
}

/** SHA-256 (hex) of a file's content. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function linkExclusive(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw err;
    // file systems without hard links: an exclusive copy still never overwrites
    await copyFile(from, to, fsConstants.COPYFILE_EXCL);
  }
}

/**
 * Move the downloaded temporary file `tmp` (sha256 `digest`) into `dir` under `name`, never
 * overwriting a different file: an existing file with the same content is reused; otherwise
 * the name gets `_1`, `_2`, … before the extension. With `generated` the name is
 * `download_<n><ext>` and n counts up instead. `tmp` is removed in every case.
 * @returns the absolute path the content now has.
 */
export async function placeFile(tmp: string, dir: string, name: string, digest: string, generated = false): Promise<string> {
  const ext = path.extname(name);
  const stem = name.slice(0, name.length - ext.length);
  try {
    for (let n = generated ? 1 : 0; n < 10000; n++) {
      const candidate = path.join(dir, generated ? `download_${n}${ext}` : n === 0 ? name : `${stem}_${n}${ext}`);
      try {
        await linkExclusive(tmp, candidate);
        return candidate;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const st = await stat(candidate).catch(() => undefined);
        if (st?.isFile() && (await sha256File(candidate)) === digest) return candidate;
      }
    }
    throw new Error(`no free file name for ${name}`);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}
