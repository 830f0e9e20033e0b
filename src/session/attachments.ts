/**
 * Attachment records of a session (table `skillgate.attachments`, migration 0002): uploads,
 * artifacts and materialized URLs, each with a reference id the model can use (`img_1`,
 * `video_1`, `audio_1`, `file_1`).
 *
 * Source: R-FILE-06, R-CTX-05,
 * R-CTX-06, A-10.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { AttachmentItem, MediaKind } from '../runtime/types.ts';
import type { Queryable } from '../store/db.ts';
import { mediaKindOf } from './media-kind.ts';
import { attachmentsChanged, cachedAttachments, ATTACHMENTS_CHANNEL } from './cache.ts';

export { mediaKindOf } from './media-kind.ts';

/** How a file became an attachment. */
export type AttachmentOrigin = 'upload' | 'artifact' | 'materialized';

/** Reference-id prefix per media kind. */
export const REF_PREFIX: Readonly<Record<MediaKind, string>> = {
  image: 'img_',
  video: 'video_',
  audio: 'audio_',
  file: 'file_',
};

/** A stored attachment. */
export interface AttachmentRecord {
  /** Unguessable id (128-bit random, base64url, 22 chars): the `GET /files/<id>` key. */
  id: string;
  sessionId: string;
  /** Reference id shown to the model, e.g. `img_2`. */
  ref: string;
  type: MediaKind;
  filename: string;
  /** Absolute path, or "" when the file is only known by URL. */
  localPath: string;
  /** "" when none. */
  url: string;
  /** Bytes, null when unknown. */
  sizeBytes: number | null;
  mime: string | null;
  origin: AttachmentOrigin;
  createdAt: Date;
}

/** Input of {@link registerAttachment}. */
export interface NewAttachment {
  sessionId: string;
  /** Default: from `mime` when it names image/video/audio, else from `filename` ({@link mediaKindOf}). */
  type?: MediaKind;
  filename: string;
  /** Stored as an absolute path (`path.resolve`); "" when the file is only known by URL. */
  localPath: string;
  url?: string;
  origin: AttachmentOrigin;
  mime?: string;
  sizeBytes?: number;
}

interface AttachmentRow {
  id: string;
  session_id: string;
  ref: string;
  type: MediaKind;
  filename: string;
  local_path: string;
  url: string;
  size_bytes: string | number | null;
  mime: string | null;
  origin: AttachmentOrigin;
  created_at: Date | string;
}

const COLUMNS = 'id, session_id, ref, type, filename, local_path, url, size_bytes, mime, origin, created_at';
/** Attempts of the numbering insert before giving up (each lost race costs one). */
const MAX_ATTEMPTS = 20;

function toRecord(r: AttachmentRow): AttachmentRecord {
  return {
    id: r.id,
    sessionId: r.session_id,
    ref: r.ref,
    type: r.type,
    filename: r.filename,
    localPath: r.local_path,
    url: r.url,
    sizeBytes: r.size_bytes === null ? null : Number(r.size_bytes),
    mime: r.mime,
    origin: r.origin,
    createdAt: new Date(r.created_at),
  };
}

function kindOf(a: NewAttachment): MediaKind {
  if (a.type) return a.type;
  const fromMime = a.mime ? mediaKindOf(a.mime) : 'file';
  return fromMime !== 'file' ? fromMime : mediaKindOf(a.filename);
}

async function findByPath(q: Queryable, sessionId: string, localPath: string): Promise<AttachmentRecord | null> {
  const { rows } = await q.query<AttachmentRow>(`SELECT ${COLUMNS} FROM skillgate.attachments WHERE session_id = $1 AND local_path = $2`, [
    sessionId,
    localPath,
  ]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/**
 * Register a file of a session and give it the next reference id of its kind in that session
 * (`img_1`, `img_2`, … per session, A-10).
 *
 * Idempotent: registering the same session + local path again returns the existing record
 * unchanged. Race-safe: the number is computed inside the INSERT and a lost race (unique
 * `(session_id, ref)`) is retried with the next number; the statement never aborts the
 * caller's transaction (ON CONFLICT DO NOTHING).
 * @throws the database error (e.g. 23503 when the session does not exist); Error after
 *   {@link MAX_ATTEMPTS} lost races.
 */
export async function registerAttachment(q: Queryable, a: NewAttachment): Promise<AttachmentRecord> {
  const localPath = a.localPath.trim() === '' ? '' : resolve(a.localPath);
  if (localPath) {
    const existing = await findByPath(q, a.sessionId, localPath);
    if (existing) return existing;
  }
  const type = kindOf(a);
  attachmentsChanged(a.sessionId);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const { rows } = await q.query<AttachmentRow>(
      `INSERT INTO skillgate.attachments
         (id, session_id, ref, type, seq, filename, local_path, url, size_bytes, mime, origin)
       SELECT $1::text, $2::text, $3::text || (m.n + 1)::text, $4::text, m.n + 1,
              $5::text, $6::text, $7::text, $8::bigint, $9::text, $10::text
         FROM (SELECT COALESCE(MAX(seq), 0) AS n FROM skillgate.attachments
                WHERE session_id = $2::text AND type = $4::text) m
       ON CONFLICT DO NOTHING
       RETURNING ${COLUMNS}, pg_notify('${ATTACHMENTS_CHANNEL}', session_id)`,
      [
        randomBytes(16).toString('base64url'),
        a.sessionId,
        REF_PREFIX[type],
        type,
        a.filename,
        localPath,
        a.url ?? '',
        a.sizeBytes ?? null,
        a.mime ?? null,
        a.origin,
      ],
    );
    if (rows[0]) {
      attachmentsChanged(a.sessionId); // again: a list read while the INSERT ran is not kept
      return toRecord(rows[0]);
    }
    if (localPath) {
      const existing = await findByPath(q, a.sessionId, localPath);
      if (existing) return existing;
    }
  }
  throw new Error(`could not number an attachment of session ${a.sessionId} after ${MAX_ATTEMPTS} attempts`);
}

/**
 * Every attachment of a session in reference order: images, videos, audio, files, each by
 * number (`img_1`, `img_2`, `video_1`, …). @throws the database error.
 */
export async function listAttachments(q: Queryable, sessionId: string): Promise<AttachmentRecord[]> {
  // Cached per Db and kept exact by registerAttachment (src/session/cache.ts).
  return cachedAttachments(q, sessionId, async () => {
    const { rows } = await q.query<AttachmentRow>(
      `SELECT ${COLUMNS} FROM skillgate.attachments WHERE session_id = $1
        ORDER BY CASE type WHEN 'image' THEN 0 WHEN 'video' THEN 1 WHEN 'audio' THEN 2 ELSE 3 END, seq`,
      [sessionId],
    );
    return rows.map(toRecord);
  });
}

/** The attachment with this unguessable id, or null. The caller checks the session's owner. */
export async function getAttachment(q: Queryable, id: string): Promise<AttachmentRecord | null> {
  const { rows } = await q.query<AttachmentRow>(`SELECT ${COLUMNS} FROM skillgate.attachments WHERE id = $1`, [id]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/**
 * `runtime_context.attachments` items (R-CTX-06): `{type, att_type, filename,
 * local_path, url}` with `att_type === type`; local_path / url "" when unknown.
 */
export function toAttachmentItems(records: readonly AttachmentRecord[]): AttachmentItem[] {
  return records.map((r) => ({ type: r.type, att_type: r.type, filename: r.filename, local_path: r.localPath, url: r.url }));
}

/**
 * Reference id → local path of the records that have a local file: the `refs` map of
 * `normalizeFileParams` (R-FILE-07/08).
 */
export function attachmentRefs(records: readonly AttachmentRecord[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of records) if (r.localPath) out[r.ref] = r.localPath;
  return out;
}
