/**
 * Session records (table `skillgate.sessions`, migration 0002): one per conversation, each
 * with its workspace folder.
 *
 * Source: README.md "The skillgate command" (the CLI's session id
 * derived from the workspace path); R-PCTX-06.
 */
import { createHash, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Queryable } from '../store/db.ts';
import { ensureWorkspace, ensureWorkspaceOnce, workspaceDir } from './workspace.ts';
import { cachedSession, rememberSession } from './cache.ts';

/** A stored session. */
export interface SessionRecord {
  id: string;
  roleId: string;
  orgId: string;
  channel: string;
  /** The actor's contact key, or `<channel>:<id>` for an actor outside the directory. */
  ownerKey: string;
  /** Absolute path of the session workspace (R-PCTX-06). */
  workspaceDir: string;
  createdAt: Date;
  lastActiveAt: Date;
}

/** Input of {@link getOrCreateSession}. */
export interface SessionSpec {
  /** Session id; a fresh random one (`s_` + 128-bit base64url) when absent. */
  id?: string;
  roleId: string;
  orgId: string;
  channel: string;
  ownerKey: string;
  /** The data dir; the workspace is `<dataDir>/workspaces/<role_id>/<session_id>`. */
  dataDir: string;
  /** An explicit workspace folder (CLI `--workspace DIR`) instead of the data-dir layout. */
  workspaceDir?: string;
  /** False: the caller makes sure the workspace folder exists itself (default true: created here). */
  ensureWorkspace?: boolean;
}

interface SessionRow {
  id: string;
  role_id: string;
  org_id: string;
  channel: string;
  owner_key: string;
  workspace_dir: string;
  created_at: Date | string;
  last_active_at: Date | string;
}

const COLUMNS = 'id, role_id, org_id, channel, owner_key, workspace_dir, created_at, last_active_at';

function toRecord(r: SessionRow): SessionRecord {
  return {
    id: r.id,
    roleId: r.role_id,
    orgId: r.org_id,
    channel: r.channel,
    ownerKey: r.owner_key,
    workspaceDir: r.workspace_dir,
    createdAt: new Date(r.created_at),
    lastActiveAt: new Date(r.last_active_at),
  };
}

/** A fresh unguessable session id: `s_` + 128 random bits in base64url (24 chars). */
export function newSessionId(): string {
  return `s_${randomBytes(16).toString('base64url')}`;
}

/**
 * The CLI's stable session id for a workspace folder (README.md "The skillgate command"): `cli_` + the first 16
 * hex digits of sha256 of the absolute path (`path.resolve`, symlinks not followed, so the id
 * does not depend on whether the folder exists yet).
 */
export function sessionIdForWorkspace(path: string): string {
  return `cli_${createHash('sha256').update(resolve(path), 'utf8').digest('hex').slice(0, 16)}`;
}

/**
 * Return the session `spec.id`, creating it when missing, and mark it active
 * (`last_active_at = now()`); the workspace folder is created when missing.
 *
 * An existing session keeps its stored role, org, channel, owner and workspace (the caller
 * compares `ownerKey` where access depends on it). Safe under concurrent calls for one id
 * (one INSERT … ON CONFLICT statement). Called on a Db, a record returned in the last
 * `SESSION_TOUCH_MS` (60 s) is reused without a statement (sessions are never changed but for
 * `last_active_at`, which is therefore accurate to that interval; src/session/cache.ts).
 * @throws the database error; the fs error when the workspace cannot be created.
 */
export async function getOrCreateSession(q: Queryable, spec: SessionSpec): Promise<SessionRecord> {
  const nowMs = Date.now();
  if (spec.id) {
    const hit = cachedSession<SessionRecord>(q, spec.id, nowMs);
    if (hit) {
      if (spec.ensureWorkspace !== false) ensureWorkspaceOnce(hit.workspaceDir);
      return { ...hit };
    }
  }
  const id = spec.id ?? newSessionId();
  const dir = resolve(spec.workspaceDir ?? workspaceDir(spec.dataDir, spec.roleId, id));
  const { rows } = await q.query<SessionRow>(
    `INSERT INTO skillgate.sessions (id, role_id, org_id, channel, owner_key, workspace_dir)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO UPDATE SET last_active_at = now()
     RETURNING ${COLUMNS}`,
    [id, spec.roleId, spec.orgId, spec.channel, spec.ownerKey, dir],
  );
  const record = toRecord(rows[0]!);
  if (spec.ensureWorkspace !== false) ensureWorkspace(record.workspaceDir);
  rememberSession(q, id, { ...record }, nowMs);
  return record;
}

/** The session `id`, or null when there is none. @throws the database error. */
export async function getSession(q: Queryable, id: string): Promise<SessionRecord | null> {
  const { rows } = await q.query<SessionRow>(`SELECT ${COLUMNS} FROM skillgate.sessions WHERE id = $1`, [id]);
  return rows[0] ? toRecord(rows[0]) : null;
}
