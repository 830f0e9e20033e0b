/**
 * The import file of `insert_from_file` (R-DT-35, R-DT-64, D-23):
 * where it may be read from, its formats, and `mapping` / `defaults`. The file is never
 * deleted here — the calling skill creates and cleans it (R-DT-64).
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { arraySource, jsonSource, type RecordSource } from './source.ts';
import type { Bilingual } from '../model/results.ts';

/** Largest import file read, bytes (256 MiB). */
export const MAX_IMPORT_BYTES = 256 * 1024 * 1024;

function within(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function real(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * The roots a file may be read from: the session workspace and, when the workspace has the
 * platform layout `<data>/workspaces/<role>/<session>`, the attachment store `<data>/attachments`
 * (where uploads and resolved reference ids such as `file_1` point; D-23).
 */
export function importRoots(workspaceDir: string): string[] {
  const roots = [workspaceDir];
  const ws = resolve(workspaceDir);
  const data = dirname(dirname(dirname(ws)));
  if (basename(dirname(dirname(ws))) === 'workspaces') roots.push(join(data, 'attachments'));
  return roots;
}

/** How deep {@link findInWorkspace} looks below the workspace root, and how many entries it reads at most. */
const SEARCH_DEPTH = 4;
const SEARCH_ENTRIES = 5000;

/**
 * The files named `name` in sub-folders of the workspace (not the root itself), at most
 * {@link SEARCH_DEPTH} levels deep, symlinked folders not followed, at most
 * {@link SEARCH_ENTRIES} directory entries read. Returns absolute paths.
 */
export function findInWorkspace(workspaceDir: string, name: string): string[] {
  const found: string[] = [];
  let budget = SEARCH_ENTRIES;
  const walk = (dir: string, depth: number): void => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (--budget < 0) return;
      if (e.isDirectory()) {
        if (depth < SEARCH_DEPTH) walk(join(dir, e.name), depth + 1);
      } else if (depth > 0 && e.name === name && (e.isFile() || e.isSymbolicLink())) found.push(join(dir, e.name));
    }
  };
  walk(workspaceDir, 0);
  return found;
}

/**
 * How a path is shown to the user: relative to the workspace (`imports/data.json`) when it is
 * inside it, else only its file name — never the server's absolute path.
 */
export function displayPath(p: string, workspaceDir: string): string {
  const ws = resolve(workspaceDir);
  const abs = resolve(ws, p);
  const rel = relative(ws, abs);
  if (rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) return rel.split(sep).join('/');
  const wsReal = real(ws);
  const absReal = real(abs);
  if (wsReal && absReal && within(absReal, wsReal)) return relative(wsReal, absReal).split(sep).join('/');
  return basename(abs);
}

/**
 * Resolve `file` for reading (D-23): a relative path is taken inside the workspace; an
 * absolute one must resolve (after symlinks) inside one of {@link importRoots}.
 *
 * A bare name (or `<workspace>/<name>`) that is not at the workspace root is looked up in the
 * workspace's sub-folders ({@link findInWorkspace}): the executor's file-parameter rule
 * (R-FILE-03/05) reduces a top-level `file: "imports/data.json"` to
 * `data.json`, while spec §7.4★ asks callers to put import files in a workspace sub-folder;
 * with a unique match both the flat and the nested `payload.file` form reach the same file.
 * Several matches are refused, listing them (write the path under `payload.file`).
 * @returns the real absolute path, or a bilingual refusal naming the path relative to the
 *   workspace (never the server's absolute path): missing, a directory, several matches,
 *   outside the workspace.
 */
export function resolveImportPath(file: unknown, workspaceDir: string): { path: string } | { error: Bilingual } {
  if (typeof file !== 'string' || file.trim() === '') {
    return { error: { zh: 'file 必填：工作区里的 JSON 文件路径。', en: 'file is required: the path of a JSON file in the workspace' } };
  }
  if (!workspaceDir || !isAbsolute(workspaceDir)) {
    return { error: { zh: '当前调用没有工作区，无法读取导入文件。', en: 'this call has no workspace to read the import file from' } };
  }
  const ws = resolve(workspaceDir);
  const candidate = isAbsolute(file) ? file : join(ws, file);
  const shown = displayPath(candidate, ws);
  let p = real(candidate);
  if (p === null && dirname(resolve(candidate)) === ws) {
    const hits = findInWorkspace(ws, basename(candidate));
    if (hits.length > 1) {
      const list = hits.map((h) => displayPath(h, ws)).sort();
      return {
        error: {
          zh: `工作区里有多个名为「${basename(candidate)}」的文件（${list.join('、')}），请在 payload.file 中写明子目录路径。`,
          en: `several workspace files are named "${basename(candidate)}" (${list.join(', ')}); give the sub-folder path under payload.file`,
        },
      };
    }
    if (hits.length === 1) p = real(hits[0]!);
  }
  if (p === null)
    return {
      error: {
        zh: `找不到导入文件「${shown}」（路径相对于会话工作区）。`,
        en: `import file "${shown}" does not exist (paths are relative to the session workspace)`,
      },
    };
  const found = p;
  const roots = importRoots(ws)
    .map((r) => real(r))
    .filter((r): r is string => r !== null);
  if (!roots.some((r) => within(found, r))) {
    return {
      error: {
        zh: `导入文件「${shown}」不在会话工作区内，已拒绝读取。`,
        en: `import file "${shown}" is outside the session workspace; refused`,
      },
    };
  }
  let isDir = false;
  try {
    isDir = statSync(found).isDirectory();
  } catch {
    return { error: { zh: `导入文件「${shown}」无法读取。`, en: `import file "${shown}" cannot be read` } };
  }
  if (isDir)
    return {
      error: {
        zh: `「${shown}」是一个目录，不是文件；请给出目录里的 JSON 文件路径。`,
        en: `"${shown}" is a directory, not a file; name the JSON file inside it`,
      },
    };
  return { path: found };
}

/**
 * Read the records of an import file: a JSON array of objects; an object holding such an
 * array under `records`, `data`, `rows` or `items`; or JSON Lines (`.jsonl` / `.ndjson`, one
 * object per line, blank lines ignored).
 * @returns the records (items not checked here), or a bilingual refusal.
 */
export function readImportRecords(path: string): { records: unknown[] } | { error: Bilingual } {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return { error: { zh: '导入文件无法读取。', en: 'the import file cannot be read' } };
  }
  if (size > MAX_IMPORT_BYTES) {
    return {
      error: {
        zh: `导入文件超过 ${MAX_IMPORT_BYTES / 1024 / 1024} MB。`,
        en: `the import file exceeds ${MAX_IMPORT_BYTES / 1024 / 1024} MB`,
      },
    };
  }
  // Buffer first, then one decode: faster than readFileSync(path, 'utf8') on Node 20 for CJK-heavy text.
  let text: string;
  try {
    text = readFileSync(path).toString('utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'EISDIR') return { error: { zh: '导入文件是一个目录，不是文件。', en: 'the import file is a directory, not a file' } };
    return { error: { zh: '导入文件无法读取。', en: 'the import file cannot be read' } };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const ext = extname(path).toLowerCase();
  if (ext === '.jsonl' || ext === '.ndjson') {
    const records: unknown[] = [];
    const lines = text.split(/\r?\n/);
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim();
      if (line === '') continue;
      try {
        records.push(JSON.parse(line) as unknown);
      } catch {
        return { error: { zh: `导入文件第 ${i + 1} 行不是合法 JSON。`, en: `line ${i + 1} of the import file is not valid JSON` } };
      }
    }
    return { records };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {
      error: { zh: '导入文件不是合法 JSON（需要对象数组）。', en: 'the import file is not valid JSON (an array of objects is expected)' },
    };
  }
  if (Array.isArray(parsed)) return { records: parsed };
  if (parsed && typeof parsed === 'object') {
    for (const k of ['records', 'data', 'rows', 'items']) {
      const v = (parsed as Record<string, unknown>)[k];
      if (Array.isArray(v)) return { records: v };
    }
  }
  return { error: { zh: '导入文件应是对象数组 [{...}, {...}]。', en: 'the import file must hold an array of objects [{...}, {...}]' } };
}

/**
 * Open the records of an import file for a chunked import (source.ts): a top-level
 * JSON array is scanned once and parsed chunk by chunk as the import reaches it; the other
 * forms (an object holding the array, JSON Lines) are read whole by {@link readImportRecords}.
 * Same size limit and refusals as {@link readImportRecords}; a structural JSON error refuses
 * the file before anything is written.
 * @returns a {@link RecordSource} (its `length` is the record count), or a bilingual refusal.
 */
export function openImportRecords(path: string): { source: RecordSource } | { error: Bilingual } {
  const ext = extname(path).toLowerCase();
  const whole = (): { source: RecordSource } | { error: Bilingual } => {
    const r = readImportRecords(path);
    return 'error' in r ? r : { source: arraySource(r.records) };
  };
  if (ext === '.jsonl' || ext === '.ndjson') return whole();
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return { error: { zh: '导入文件无法读取。', en: 'the import file cannot be read' } };
  }
  if (size > MAX_IMPORT_BYTES) return whole();
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch {
    return whole();
  }
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
  return jsonSource(buf);
}

/**
 * Check `mapping` ({target column: source key}) and `defaults` ({column: value}) (R-DT-35).
 * @returns null when both are absent or plain objects (mapping values strings), else a refusal naming the parameter.
 */
export function checkMappingDefaults(mapping: unknown, defaults: unknown): { param: string; error: Bilingual } | null {
  if (mapping !== undefined && mapping !== null) {
    if (typeof mapping !== 'object' || Array.isArray(mapping) || !Object.values(mapping).every((v) => typeof v === 'string')) {
      return {
        param: 'mapping',
        error: { zh: 'mapping 应为 {目标列: 源键} 对象。', en: 'mapping must be an object {target column: source key}' },
      };
    }
  }
  if (defaults !== undefined && defaults !== null && (typeof defaults !== 'object' || Array.isArray(defaults))) {
    return { param: 'defaults', error: { zh: 'defaults 应为 {列: 固定值} 对象。', en: 'defaults must be an object {column: value}' } };
  }
  return null;
}

/**
 * Apply `mapping` then `defaults` to one source record: every mapped source key is removed and
 * its value placed under the target column; a default fills a column that is missing, null or
 * "". Non-objects are returned unchanged (they fail validation later, with their row number).
 */
export function applyMapping(
  rec: unknown,
  mapping: Record<string, string> | undefined,
  defaults: Record<string, unknown> | undefined,
): unknown {
  if (!rec || typeof rec !== 'object' || Array.isArray(rec)) return rec;
  const src = rec as Record<string, unknown>;
  let out: Record<string, unknown>;
  if (mapping) {
    out = { ...src };
    for (const key of Object.values(mapping)) delete out[key];
    for (const [target, key] of Object.entries(mapping)) if (Object.hasOwn(src, key)) out[target] = src[key];
  } else out = src;
  if (defaults) {
    if (out === src) out = { ...src };
    for (const [k, v] of Object.entries(defaults)) if (out[k] === undefined || out[k] === null || out[k] === '') out[k] = v;
  }
  return out;
}
