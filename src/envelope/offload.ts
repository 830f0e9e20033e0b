/**
 * Result offloading (R-OFF-01..05, A-17, A-18): a large successful result is
 * written to a workspace file and only a receipt stays in the model's context.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isFailure } from './normalize.ts';
import type { Envelope } from './types.ts';

/** Default threshold in Unicode code points (R-OFF-01). */
export const OFFLOAD_LIMIT = 12000;

/** Workspace sub-folder of offload files (a sub-folder, so fallback collection skips it; A-18). */
export const OFFLOAD_DIR = '.offload';

/**
 * Fields copied verbatim into the receipt when the result has them: the R-OFF-03 list
 * (filename, local_path, download_url, abs_url, media, ok, images, videos, files, audios,
 * display_md) plus `success`, `artifacts`, `error_type`, `action_note` (platform choice: the
 * status, the artifacts of README.md "The skillgate command" and the alias note must survive an offload).
 */
export const RECEIPT_PRESERVED_FIELDS = [
  'filename',
  'local_path',
  'download_url',
  'abs_url',
  'media',
  'ok',
  'images',
  'videos',
  'files',
  'audios',
  'display_md',
  'success',
  'artifacts',
  'error_type',
  'action_note',
] as const;

/** Read-type tools that paginate themselves and are never offloaded (R-OFF-05). */
export const READ_TYPE_SKILLS: ReadonlySet<string> = new Set(['file_read']);

/** A sample longer than this many code points (as JSON) is replaced by a cut JSON preview. */
export const SAMPLE_MAX = 2000;

/** Options of {@link offloadIfLarge}. */
export interface OffloadOptions {
  /** The skill's name (goes into the file name, sanitised to `[A-Za-z0-9_-]`). */
  skill: string;
  /** Absolute session workspace directory. */
  workspaceDir: string;
  /** Threshold in code points (default 12000): longer ⇒ offloaded, equal ⇒ inline. */
  limit?: number;
  /** Clock in ms since the epoch (tests inject one); default `Date.now`. */
  clock?: () => number;
  /** A read-type tool that paginates itself (R-OFF-05); default: name in {@link READ_TYPE_SKILLS}. */
  readType?: boolean;
}

/** The receipt that replaces an offloaded result (R-OFF-02/03, A-18). */
export interface OffloadReceipt extends Envelope {
  offloaded: true;
  /** The result's own `filename`, else the offload file's name. */
  filename: string;
  /** The result's own `local_path`, else the offload file's absolute path. */
  local_path: string;
  /** Always the offload file's name. */
  offload_file: string;
  /** Always the offload file's absolute path. */
  offload_path: string;
  /** The result's top-level keys, in order. */
  fields: string[];
  /** Length of every top-level array field. */
  counts: Record<string, number>;
  /** First item of every non-empty top-level array field. */
  sample: Record<string, unknown>;
}

/**
 * Serialised size of a value as A-17 measures it: `JSON.stringify` (which never escapes
 * non-ASCII) counted in Unicode code points, not UTF-16 units. `undefined` → 0.
 */
export function serializedSize(value: unknown): number {
  const json = JSON.stringify(value);
  return json === undefined ? 0 : codePoints(json);
}

const SURROGATE = /[\ud800-\udfff]/;
const SURROGATE_PAIR = /[\ud800-\udbff][\udc00-\udfff]/g;

/** Code points of `s`, counted by the regex engine: a 1 M-character result is never spread into an array. */
function codePoints(s: string): number {
  return SURROGATE.test(s) ? s.length - (s.match(SURROGATE_PAIR)?.length ?? 0) : s.length;
}

/** The UTF-16 index where the first `max` code points of `s` end (walks at most `max` of them). */
function codePointPrefixEnd(s: string, max: number): number {
  let i = 0;
  for (let points = 0; i < s.length && points < max; points++) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  return i;
}

/**
 * True when a top-level string of `own` alone is over `limit` code points (more than two UTF-16
 * units per point is impossible, and JSON only adds to a string): such a result is offloaded
 * without serialising it just to measure it (a 1 M-character display_md).
 */
function hasLongString(own: Record<string, unknown>, limit: number): boolean {
  for (const v of Object.values(own)) if (typeof v === 'string' && v.length > 2 * limit) return true;
  return false;
}

/** `YYYYMMDD<sep>HHMMSS` in UTC. */
function utcStamp(ms: number, sep = '_'): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${sep}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

function sampleOf(item: unknown): unknown {
  const json = JSON.stringify(item);
  if (json === undefined) return item;
  const end = codePointPrefixEnd(json, SAMPLE_MAX);
  return end === json.length ? item : `${json.slice(0, end)}…`;
}

/**
 * Write `data` to `dir` under a new name `<base><ext>`, else `<base><sep>1<ext>`, `<base><sep>2<ext>` …
 * (flag `wx`: never overwrites). @returns the name. @throws the file system error.
 */
async function writeUnique(dir: string, base: string, ext: string, data: string | Buffer, sep = '_'): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (let n = 0; ; n++) {
    const name = n === 0 ? `${base}${ext}` : `${base}${sep}${n}${ext}`;
    try {
      await writeFile(path.join(dir, name), data, { flag: 'wx' });
      return name;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 999) throw err;
    }
  }
}

/**
 * Offload a large successful result (R-OFF-01..05).
 *
 * - Failures (`isFailure`) are never offloaded (R-OFF-04); neither are read-type tools (R-OFF-05).
 * - Size = {@link serializedSize} of the envelope as passed (run it after artifact processing so
 *   `artifacts` is part of the result). `size > limit` ⇒ offloaded; `size === limit` stays inline.
 * - The full result goes to `<workspace>/.offload/offload_<skill>_<UTC YYYYMMDD_HHMMSS>[_n].json`
 *   (pretty JSON, UTF-8), a sub-folder so fallback collection never picks it up.
 * - The receipt: `{offloaded: true, filename, local_path, offload_file, offload_path, fields,
 *   counts, sample}` plus every {@link RECEIPT_PRESERVED_FIELDS} field the result had, verbatim.
 *   `counts`/`sample` cover top-level arrays only; a sample larger than
 *   {@link SAMPLE_MAX} code points becomes a cut JSON string.
 *   `filename`/`local_path` name the offload file — unless the result had its own (an artifact
 *   it declared), which then stay untouched; `offload_file`/`offload_path` always name the
 *   offload file, so a reader never has to guess.
 *
 * @returns the receipt, or the envelope itself (same object) when not offloaded.
 * @throws when the offload file cannot be written (disk full, unwritable workspace).
 */
export async function offloadIfLarge(envelope: Envelope, opts: OffloadOptions): Promise<Envelope> {
  const limit = opts.limit ?? OFFLOAD_LIMIT;
  const readType = opts.readType ?? READ_TYPE_SKILLS.has(opts.skill);
  if (readType || isFailure(envelope)) return envelope;
  // The skill's own result is measured (R-OFF-01): without the platform's `artifacts` /
  // `artifact_errors` additions, so a 12 000-point result stays inline whatever was attached.
  const { artifacts: _artifacts, artifact_errors: _errors, ...own } = envelope;
  if (!hasLongString(own, limit) && serializedSize(own) <= limit) return envelope;

  const safeSkill = opts.skill.replace(/[^A-Za-z0-9_-]/g, '_') || 'skill';
  const dir = path.join(opts.workspaceDir, OFFLOAD_DIR);
  const base = `offload_${safeSkill}_${utcStamp((opts.clock ?? Date.now)())}`;
  const name = await writeUnique(dir, base, '.json', JSON.stringify(envelope, null, 2));
  const filePath = path.join(dir, name);

  const counts: Record<string, number> = {};
  const sample: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(envelope)) {
    if (!Array.isArray(v)) continue;
    counts[k] = v.length;
    if (v.length > 0) sample[k] = sampleOf(v[0]);
  }
  const receipt: OffloadReceipt = {
    offloaded: true,
    filename: name,
    local_path: filePath,
    offload_file: name,
    offload_path: filePath,
    fields: Object.keys(envelope),
    counts,
    sample,
  };
  for (const key of RECEIPT_PRESERVED_FIELDS) {
    if (key in envelope && envelope[key] !== undefined) (receipt as Record<string, unknown>)[key] = envelope[key];
  }
  return receipt;
}

/** The file name's stem of a kept full text, by language (hyphens only: a markdown notice names it unescaped). */
const FULL_TEXT_STEM = { 'zh-CN': '完整回复', en: 'full-reply' } as const;

/** A text written by {@link writeFullText}. */
export interface FullTextFile {
  filename: string;
  /** Absolute path. */
  path: string;
  /** Bytes (UTF-8). */
  size: number;
}

/**
 * Write the whole text of a cut message to `<workspace>/.offload/<完整回复|full-reply>-<UTC
 * YYYYMMDD-HHMMSS>[-n].md` (UTF-8, never overwriting; docs/operations-delivery.md "Long replies").
 * @throws the file system error.
 */
export async function writeFullText(
  workspaceDir: string,
  text: string,
  lang: 'zh-CN' | 'en',
  now: Date = new Date(),
): Promise<FullTextFile> {
  const dir = path.join(workspaceDir, OFFLOAD_DIR);
  const data = Buffer.from(text, 'utf8');
  const base = `${FULL_TEXT_STEM[lang] ?? FULL_TEXT_STEM['zh-CN']}-${utcStamp(now.getTime(), '-')}`;
  const filename = await writeUnique(dir, base, '.md', data, '-');
  return { filename, path: path.join(dir, filename), size: data.length };
}
