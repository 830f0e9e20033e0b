/**
 * Session workspace layout: `<data>/workspaces/<role_id>/<session_id>` and the shared
 * attachment store `<data>/attachments`.
 *
 * Source: R-PCTX-06, D-23.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** A segment kept as written: starts alphanumeric, then `[A-Za-z0-9._-]`, at most 100 chars. */
const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * `value` as one safe path segment: never empty, never `.` or `..`, no `/` or `\`.
 *
 * A value that is already safe (see {@link SAFE_SEGMENT}) is returned unchanged. Any other
 * value becomes `_<readable part>_<16 hex of sha256(value)>`: the leading `_` keeps encoded
 * names apart from safe ones and the hash keeps two different ids apart (`a/b` and `a_b` never
 * share a folder).
 */
export function safeSegment(value: string): string {
  if (SAFE_SEGMENT.test(value)) return value;
  const readable = value
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/\.{2,}/g, '_')
    .slice(0, 40);
  const hash = createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 16);
  return `_${readable}_${hash}`;
}

/**
 * Absolute workspace folder of a session: `<dataDir>/workspaces/<role_id>/<session_id>`
 * (R-PCTX-06), both ids passed through {@link safeSegment}. Pure: creates nothing.
 */
export function workspaceDir(dataDir: string, roleId: string, sessionId: string): string {
  return join(resolve(dataDir), 'workspaces', safeSegment(roleId), safeSegment(sessionId));
}

/** Absolute folder of the platform's attachment store: `<dataDir>/attachments` (D-23). Pure. */
export function attachmentStoreDir(dataDir: string): string {
  return join(resolve(dataDir), 'attachments');
}

/**
 * Create `dir` (and its parents) when missing, mode 0700 for new folders.
 * @returns the absolute path of `dir`.
 * @throws the fs error when the folder cannot be created (e.g. EACCES, ENOTDIR).
 */
export function ensureWorkspace(dir: string): string {
  const abs = resolve(dir);
  mkdirSync(abs, { recursive: true, mode: 0o700 });
  remember(abs);
  return abs;
}

/** Folders {@link ensureWorkspace} made sure of in this process, oldest first (bounded). */
const ensured = new Set<string>();
const ENSURED_MAX = 4096;

function remember(abs: string): void {
  ensured.delete(abs);
  ensured.add(abs);
  if (ensured.size > ENSURED_MAX) ensured.delete(ensured.values().next().value as string);
}

/**
 * {@link ensureWorkspace} without a system call when this process already made sure of `dir`:
 * for a session opened again and again (src/session/sessions.ts). A folder removed from outside
 * since then is created again where a skill call resolves its workspace (src/executor/skill-call.ts).
 * @returns the absolute path of `dir`. @throws as {@link ensureWorkspace}.
 */
export function ensureWorkspaceOnce(dir: string): string {
  const abs = resolve(dir);
  return ensured.has(abs) ? abs : ensureWorkspace(abs);
}
