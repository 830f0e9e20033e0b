/**
 * Parsing a subprocess skill's stdout into its result (R-SUB-03, A-06).
 */
import { statSync } from 'node:fs';
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { MediaKind } from '../runtime/types.ts';

/** File extensions (lower case, with dot) recognised on a media-path line, by media kind. */
export const MEDIA_EXTENSIONS: Readonly<Record<MediaKind, readonly string[]>> = Object.freeze({
  image: ['.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp', '.svg', '.tif', '.tiff', '.heic', '.ico'],
  video: ['.mp4', '.mov', '.avi', '.mkv', '.webm', '.m4v', '.flv', '.wmv', '.3gp'],
  audio: ['.mp3', '.wav', '.ogg', '.oga', '.opus', '.m4a', '.aac', '.flac', '.amr', '.wma'],
  file: [
    '.pdf',
    '.doc',
    '.docx',
    '.xls',
    '.xlsx',
    '.ppt',
    '.pptx',
    '.csv',
    '.tsv',
    '.txt',
    '.md',
    '.json',
    '.xml',
    '.html',
    '.htm',
    '.zip',
    '.tar',
    '.gz',
    '.tgz',
    '.7z',
    '.rar',
    '.rtf',
    '.odt',
    '.ods',
    '.epub',
  ],
});

/** The media kind of a file name by its extension, or null when the extension is not known. */
export function mediaKindOf(file: string): MediaKind | null {
  const ext = extname(file).toLowerCase();
  for (const kind of ['image', 'video', 'audio', 'file'] as const) if (MEDIA_EXTENSIONS[kind].includes(ext)) return kind;
  return null;
}

/** Where relative media paths are looked up. */
export interface StdoutParseOptions {
  /** The process's working directory (the skill folder); informational. */
  cwd?: string;
  /** The session workspace; a relative media path must resolve inside it. */
  workspaceDir?: string;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  const t = text.trim();
  if (t === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(t) };
  } catch {
    return { ok: false };
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/**
 * A media-path line: an existing absolute path, or a path relative to the workspace
 * that stays inside it, whose extension is a known media/file extension.
 * @returns `{local_path (absolute), media}` or null.
 */
export function mediaPathLine(line: string, opts: StdoutParseOptions = {}): { local_path: string; media: MediaKind } | null {
  const p = line.trim().replace(/^["']|["']$/g, '');
  if (p === '' || p.includes('\0')) return null;
  const media = mediaKindOf(p);
  if (!media) return null;
  let abs: string;
  if (isAbsolute(p)) abs = p;
  else if (opts.workspaceDir) {
    const ws = resolve(opts.workspaceDir);
    abs = resolve(ws, p);
    const rel = relative(ws, abs);
    if (rel === '' || rel.startsWith('..' + sep) || rel === '..' || isAbsolute(rel)) return null;
  } else return null;
  return isFile(abs) ? { local_path: abs, media } : null;
}

/**
 * Parse stdout in the order of R-SUB-03: (1) the whole stdout is JSON → that value;
 * (2) the last non-empty line is JSON → that value; (3) the last non-empty line is a media
 * path ({@link mediaPathLine}) → `{local_path, media}`; (4) `{output: <raw stdout>}`.
 * Any JSON value counts (a non-object is wrapped later by the envelope).
 */
export function parseSubprocessStdout(stdout: string, opts: StdoutParseOptions = {}): unknown {
  const whole = tryJson(stdout);
  if (whole.ok) return whole.value;
  const lines = stdout.split(/\r?\n/).filter((l) => l.trim() !== '');
  const last = lines.at(-1);
  if (last !== undefined) {
    const lastJson = tryJson(last);
    if (lastJson.ok) return lastJson.value;
    const media = mediaPathLine(last, opts);
    if (media) return media;
  }
  return { output: stdout };
}
