/**
 * File parameters before a skill runs: reference ids → local paths, path normalisation into
 * the session workspace, confinement of absolute paths, and de-duplication of path arrays.
 *
 * Requirement ids: R-FILE-01..05, R-FILE-07..09, D-23, A-10, A-11.
 *
 * Choice for R-FILE-05 (documented, D-23): a non-output path field whose `<ws>/<basename>`
 * does not exist keeps its original value only when that value is a bare name; a value with a
 * directory part (`tmp/x.png`, `../x.png`) is reduced to its basename string (`x.png`), so a
 * kept value can never lead outside the workspace when the skill joins it.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Envelope } from '../envelope/types.ts';

/** The 19 path field names (R-FILE-01). */
export const PATH_FIELDS = [
  'input',
  'output',
  'file',
  'path',
  'video',
  'audio',
  'image',
  'src',
  'dst',
  'inputs',
  'files',
  'videos',
  'images',
  'clips',
  'sources',
  'paths',
  'bgm',
  'input_file',
  'file_path',
] as const;
/** Files to be generated: always placed in the workspace, no existence check (R-FILE-04). */
export const OUTPUT_FIELDS = ['output', 'dst', 'output_path', 'out'] as const;
/** Fields whose text gets reference ids replaced as substrings (R-FILE-08). */
export const CODE_FIELDS = ['code', 'command', 'script', 'cmd', 'instruction', 'shell', 'bash'] as const;

const PATH_SET = new Set<string>([...PATH_FIELDS, ...OUTPUT_FIELDS]);
const OUTPUT_SET = new Set<string>(OUTPUT_FIELDS);
const CODE_SET = new Set<string>(CODE_FIELDS);

/** Options of {@link normalizeFileParams}. */
export interface FileParamOptions {
  /** Absolute session workspace folder. */
  workspaceDir: string;
  /** The platform's attachment store (`<data>/attachments`); readable by input fields. */
  attachmentStoreDir: string;
  /** Reference id (`img_1`) → absolute local path of that attachment. */
  refs: Readonly<Record<string, string>>;
  /** Language of `user_message` (default zh-CN). */
  lang?: 'zh-CN' | 'en';
}

/** The normalised input, or a recoverable envelope (the skill must not run). */
export type FileParamResult = { input: Record<string, unknown> } | { envelope: Envelope };

type Refusal = 'outside' | 'symlink' | 'no_name' | 'unknown_ref';

/** What a reference id looks like (`img_1`, `file_2`, …; src/session/attachments.ts). */
const REF_LIKE = /^(?:img|video|audio|file)_\d+$/;
type ItemResult = { value: unknown; counted: boolean } | { refused: Refusal };

interface Ctx {
  ws: string;
  roots: { ws: string; store: string };
  refs: Readonly<Record<string, string>>;
}

/**
 * `p` resolved through every existing symlink; a missing tail is appended to the real path of
 * its nearest existing ancestor. Null for a dangling symlink or an unreadable path.
 */
function realResolve(p: string): string | null {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return null;
    if (lstatSync(abs, { throwIfNoEntry: false })) return null; // a dangling symlink
    const parent = dirname(abs);
    if (parent === abs) return null;
    const real = realResolve(parent);
    return real === null ? null : join(real, basename(abs));
  }
}

function within(real: string, root: string, allowRoot: boolean): boolean {
  const rel = relative(root, real);
  if (rel === '') return allowRoot;
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** The last segment, `/` and `\` both counting as separators. */
function lastSegment(v: string): string {
  const parts = v.split(/[\\/]/);
  return parts[parts.length - 1] ?? '';
}

/** An absolute path is kept only inside the workspace, or (inputs only) the store (D-23). */
function checkAbsolute(p: string, ctx: Ctx, output: boolean): Refusal | null {
  const real = realResolve(p);
  if (real === null) return 'outside';
  if (within(real, ctx.roots.ws, true)) return null;
  if (!output && within(real, ctx.roots.store, false)) return null;
  return 'outside';
}

/** One string of a path field (R-FILE-02..05, D-23). */
function normalizePath(v: string, ctx: Ctx, output: boolean): ItemResult {
  if (v.trim() === '') return { value: v, counted: false };
  if (/^data:/i.test(v)) return { value: v, counted: false };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(v);
  if (scheme) {
    if (scheme[1]!.toLowerCase() !== 'file') return { value: v, counted: false }; // a URL, not a path
    let p: string;
    try {
      p = fileURLToPath(v);
    } catch {
      return { refused: 'outside' };
    }
    const bad = checkAbsolute(p, ctx, output);
    return bad ? { refused: bad } : { value: v, counted: true };
  }
  if (isAbsolute(v)) {
    const bad = checkAbsolute(v, ctx, output);
    return bad ? { refused: bad } : { value: v, counted: true };
  }
  const base = lastSegment(v);
  if (base === '' || base === '.' || base === '..') return { refused: 'no_name' };
  const candidate = join(ctx.ws, base);
  const exists = lstatSync(candidate, { throwIfNoEntry: false }) !== undefined;
  if (exists) {
    const real = realResolve(candidate);
    if (real === null || !within(real, ctx.roots.ws, false)) return { refused: 'symlink' };
    return { value: candidate, counted: true };
  }
  if (output) return { value: candidate, counted: true };
  return { value: base === v ? v : base, counted: true };
}

/** One string value or array item of a top-level field (R-FILE-07 first, then the path rules). */
function normalizeItem(key: string, v: string, ctx: Ctx): ItemResult {
  const isRef = Object.hasOwn(ctx.refs, v) && v !== '';
  // A reference id this session does not have is never guessed at (never an older file).
  // (A workspace file that really has such a name is still taken: R-FILE-05.)
  if (!isRef && REF_LIKE.test(v.trim()) && lstatSync(join(ctx.ws, v.trim()), { throwIfNoEntry: false }) === undefined)
    return { refused: 'unknown_ref' };
  const value = isRef ? ctx.refs[v]! : v;
  if (!PATH_SET.has(key)) return { value, counted: isRef };
  return normalizePath(value, ctx, OUTPUT_SET.has(key));
}

/** Shell quote state before each index of `text`: 0 none, 1 inside '…', 2 inside "…". */
function quoteStates(text: string): Uint8Array {
  const states = new Uint8Array(text.length + 1);
  let st = 0;
  for (let i = 0; i < text.length; i++) {
    states[i] = st;
    const c = text[i];
    if (st === 1) {
      if (c === "'") st = 0;
    } else if (c === '\\') {
      states[++i] = st; // the escaped character keeps the state
    } else if (st === 0 && c === "'") st = 1;
    else if (c === '"') st = st === 0 ? 2 : 0;
  }
  states[text.length] = st;
  return states;
}

/** Characters a path may contain unquoted in a shell command. */
const SHELL_SAFE = /^[A-Za-z0-9_./:@%+=,-]+$/;

function quoteFor(path: string, state: number): string {
  const p = path.replace(/\\/g, '/');
  if (state === 1) return p.replace(/'/g, `'\\''`);
  if (state === 2) return p.replace(/[\\"$`]/g, '\\$&');
  return SHELL_SAFE.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Replace reference ids inside a command/code text (R-FILE-08, A-10): longest ids first, only
 * where the id stands alone (not part of `img_10`, `ximg_1`, `$img_1`, `dir/img_1`, `img_1.png`);
 * the path gets posix slashes and is single-quoted (with `'\''` escaping) when it holds a
 * space or another shell-special character; inside an existing '…' or "…" string it is escaped
 * for that string instead of quoted again.
 */
export function replaceRefsInText(text: string, refs: Readonly<Record<string, string>>): string {
  const ids = Object.keys(refs)
    .filter((id) => id !== '')
    .sort((a, b) => b.length - a.length);
  if (ids.length === 0) return text;
  const re = new RegExp(`(?<![\\w$./\\\\-])(?:${ids.map(escapeRegExp).join('|')})(?![\\w/\\\\]|\\.\\w)`, 'g');
  let states: Uint8Array | undefined;
  return text.replace(re, (id: string, offset: number) => {
    states ??= quoteStates(text);
    return quoteFor(refs[id]!, states[offset] ?? 0);
  });
}

function dedupe(items: unknown[]): unknown[] {
  const seen = new Set<unknown>();
  return items.filter((item) => {
    if (typeof item !== 'string') return true;
    if (seen.has(item)) return false;
    seen.add(item);
    return true;
  });
}

/**
 * Normalise the file parameters of a call, top-level keys only:
 *
 * 1. any string value / string array item exactly equal to a reference id becomes that
 *    attachment's local path (R-FILE-07);
 * 2. in `code`, `command`, `script`, `cmd`, `instruction`, `shell`, `bash` ids are replaced as
 *    substrings ({@link replaceRefsInText}, R-FILE-08);
 * 3. in the 19 path fields plus `output_path` and `out` (R-FILE-01): an absolute path (or
 *    `file://` URL) is kept unchanged only when it resolves, symlinks followed, inside the
 *    workspace — or the attachment store for non-output fields (R-FILE-02, D-23); a relative
 *    path keeps only its basename under the workspace (R-FILE-03); output fields always become
 *    `<ws>/<basename>` (R-FILE-04); other fields keep the value when `<ws>/<basename>` does not
 *    exist (R-FILE-05, reduced to the basename when it has a directory part — see the module
 *    note); a workspace entry that is a symlink leading outside is refused; `http(s)://` and
 *    `data:` values are not paths and stay as they are;
 * 4. arrays holding at least one path or resolved reference are de-duplicated, first
 *    occurrence kept (R-FILE-09, A-11).
 *
 * @returns `{input}` (a new object; `input` is never modified), or `{envelope}` — recoverable,
 *   `need_param` naming the refused field(s) — when a value points outside the allowed places
 *   or has no usable file name. Never throws for bad values.
 */
export function normalizeFileParams(input: Record<string, unknown>, opts: FileParamOptions): FileParamResult {
  const ws = resolve(opts.workspaceDir);
  const store = resolve(opts.attachmentStoreDir);
  // The real roots are resolved on first use: an input without path values costs no fs call.
  let roots: Ctx['roots'] | undefined;
  const ctx: Ctx = {
    ws,
    get roots() {
      return (roots ??= { ws: realResolve(ws) ?? ws, store: realResolve(store) ?? store });
    },
    refs: opts.refs,
  };
  const out: Record<string, unknown> = { ...input };
  const refused: { key: string; value: string; why: Refusal }[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (CODE_SET.has(key)) {
      if (typeof value === 'string') out[key] = replaceRefsInText(value, ctx.refs);
      else if (Array.isArray(value)) out[key] = value.map((v) => (typeof v === 'string' ? replaceRefsInText(v, ctx.refs) : v));
      continue;
    }
    if (typeof value === 'string') {
      const r = normalizeItem(key, value, ctx);
      if ('refused' in r) refused.push({ key, value, why: r.refused });
      else out[key] = r.value;
    } else if (Array.isArray(value)) {
      let counted = false;
      const items = value.map((item) => {
        if (typeof item !== 'string') return item;
        const r = normalizeItem(key, item, ctx);
        if ('refused' in r) {
          refused.push({ key, value: item, why: r.refused });
          return item;
        }
        counted ||= r.counted;
        return r.value;
      });
      out[key] = counted ? dedupe(items) : items;
    }
  }
  if (refused.length === 0) return { input: out };
  return { envelope: refusalEnvelope(refused, opts.lang ?? 'zh-CN', opts.refs) };
}

const WHY_EN: Record<Refusal, string> = {
  outside: 'points outside the session workspace and the attachment store',
  symlink: 'names a workspace entry that is a link leading outside the workspace',
  no_name: 'has no file name',
  unknown_ref: 'is not a reference id of this conversation',
};

/** The session's files as `img_1（photo.png）` items, for a refusal to list. */
function existing(refs: Readonly<Record<string, string>>, lang: 'zh-CN' | 'en'): string {
  const items = Object.entries(refs).map(([ref, path]) =>
    lang === 'en' ? `${ref} (${lastSegment(path)})` : `${ref}（${lastSegment(path)}）`,
  );
  if (items.length === 0) return lang === 'en' ? 'This conversation has no files yet.' : '本会话还没有文件。';
  return (lang === 'en' ? 'Files of this conversation: ' : '本会话的文件：') + items.join(lang === 'en' ? ', ' : '、');
}

function refusalEnvelope(
  refused: { key: string; value: string; why: Refusal }[],
  lang: 'zh-CN' | 'en',
  refs: Readonly<Record<string, string>>,
): Envelope {
  const keys = [...new Set(refused.map((r) => r.key))];
  const detail = refused
    .map((r) => `\`${r.key}\` = ${JSON.stringify(r.value.length > 200 ? `${r.value.slice(0, 200)}…` : r.value)} ${WHY_EN[r.why]}`)
    .join('; ');
  const error =
    `File parameter refused, the skill did not run: ${detail}. Pass a bare file name from the session workspace ` +
    '(e.g. "photo.png"; output files are always written to the workspace) or an attachment reference id such as ' +
    `img_1 / file_1, then call the tool again. ${existing(refs, 'en')}`;
  const unknown = refused.filter((r) => r.why === 'unknown_ref').map((r) => r.value);
  const user_message =
    unknown.length > 0
      ? lang === 'en'
        ? `There is no ${unknown.join(', ')} in this conversation. ${existing(refs, lang)}`
        : `本会话没有 ${unknown.join('、')}。${existing(refs, lang)}`
      : lang === 'en'
        ? `The file parameter ${keys.join(', ')} points outside this conversation's workspace or is not a valid file name; the request was refused.`
        : `文件参数 ${keys.join('、')} 指向本会话工作区以外的位置或不是有效的文件名，已拒绝执行。`;
  return {
    success: false,
    error_type: 'recoverable',
    need_param: keys.length === 1 ? keys[0]! : keys,
    error,
    user_message,
  };
}
