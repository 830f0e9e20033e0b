/**
 * Web uploads (`POST /api/uploads`, docs/adapter-authoring.md): one multipart file per request, streamed
 * by busboy to `<data dir>/uploads/<random>` while its sha256 and size are counted, then
 * recorded in `skillgate.web_uploads` under the signed-in contact. A message refers to it by
 * `upload_id`; only its owner can attach or download it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { createRequire } from 'node:module';
import type busboyType from 'busboy';
import mime from 'mime-types';
import type { Queryable } from '../../src/channel/index.ts';
import { LIMITS } from './wire.ts';

/** A stored upload, as `POST /api/uploads` answers (snake_case on the wire). */
export interface UploadRecord {
  upload_id: string;
  /** The original file name, Unicode kept exactly. */
  filename: string;
  mime_type: string;
  /** Bytes. */
  size: number;
  /** Hex sha256 of the bytes. */
  sha256: string;
}

/** Why an upload was refused (HTTP status and a short English reason). */
export class UploadError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The folder of stored uploads. */
export function uploadsDir(dataDir: string): string {
  return join(dataDir, 'uploads');
}

/** Unguessable upload id: `up_` + 128 random bits, base64url. */
export function newUploadId(): string {
  return 'up_' + randomBytes(16).toString('base64url');
}

/**
 * Receive one multipart request: the first file part is stored, other parts are drained.
 * @param maxBytes size limit (default 50 MiB, {@link LIMITS.max_upload_bytes}).
 * @returns the stored record.
 * @throws UploadError 400 (not multipart, no file), 413 (too large); the database error.
 */
export async function receiveUpload(
  req: IncomingMessage,
  args: { q: Queryable; dataDir: string; orgId: string; contactKey: string; maxBytes?: number },
): Promise<UploadRecord> {
  const maxBytes = args.maxBytes ?? LIMITS.max_upload_bytes;
  // busboy is loaded at the first upload, not by every start (docs/performance.md "Start-up").
  const busboy = createRequire(import.meta.url)('busboy') as typeof busboyType;
  let bb: busboyType.Busboy;
  try {
    // defParamCharset utf8: browsers send the raw UTF-8 name in filename="…" (Chinese names).
    bb = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fileSize: maxBytes, files: 1, fields: 20, parts: 30 } });
  } catch {
    throw new UploadError(400, 'expected multipart/form-data with one file');
  }
  const dir = uploadsDir(args.dataDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });

  const done = new Promise<{ stored: string; filename: string; mimeType: string; size: number; sha256: string; truncated: boolean } | null>(
    (resolve, reject) => {
      let pending: Promise<void> | null = null;
      let result: { stored: string; filename: string; mimeType: string; size: number; sha256: string; truncated: boolean } | null = null;
      bb.on('file', (_field, stream, info) => {
        if (pending) {
          stream.resume();
          return;
        }
        const stored = randomBytes(16).toString('hex');
        const hash = createHash('sha256');
        let size = 0;
        const counter = new Transform({
          transform(chunk: Buffer, _enc, cb) {
            size += chunk.length;
            hash.update(chunk);
            cb(null, chunk);
          },
        });
        const filename = info.filename ?? '';
        const declared = (info.mimeType || '').toLowerCase();
        const mimeType =
          declared && declared !== 'application/octet-stream' ? declared : mime.lookup(filename) || 'application/octet-stream';
        pending = pipeline(stream, counter, createWriteStream(join(dir, stored), { mode: 0o600 })).then(() => {
          result = { stored, filename, mimeType, size, sha256: hash.digest('hex'), truncated: stream.truncated === true };
        });
      });
      bb.on('error', reject);
      bb.on('close', () => {
        if (!pending) resolve(null);
        else pending.then(() => resolve(result), reject);
      });
      req.on('aborted', () => reject(new UploadError(400, 'upload aborted')));
      req.pipe(bb);
    },
  );
  let got;
  try {
    got = await done;
  } catch (err) {
    if (err instanceof UploadError) throw err;
    throw new UploadError(400, 'malformed multipart body');
  }
  if (!got) throw new UploadError(400, 'no file in the request');
  if (got.truncated) {
    await rm(join(dir, got.stored), { force: true });
    throw new UploadError(413, `file larger than ${maxBytes} bytes`);
  }
  if (got.filename === '' || got.filename.length > 255) {
    await rm(join(dir, got.stored), { force: true });
    throw new UploadError(400, 'the file needs a name of 1-255 characters');
  }
  const id = newUploadId();
  await args.q.query(
    `INSERT INTO skillgate.web_uploads (id, org_id, contact_key, filename, mime_type, size_bytes, sha256, stored_name)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [id, args.orgId, args.contactKey, got.filename, got.mimeType, got.size, got.sha256, got.stored],
  );
  return { upload_id: id, filename: got.filename, mime_type: got.mimeType, size: got.size, sha256: got.sha256 };
}

/** A stored upload with where its bytes are. */
export interface StoredUpload extends UploadRecord {
  /** Absolute path of the bytes. */
  path: string;
}

/**
 * The upload `id` when it belongs to `contactKey` of `orgId`, else null (someone else's
 * upload and an unknown id look the same). @throws the database error.
 */
export async function findOwnUpload(
  q: Queryable,
  args: { dataDir: string; orgId: string; contactKey: string; id: string },
): Promise<StoredUpload | null> {
  if (!/^up_[A-Za-z0-9_-]{22}$/.test(args.id)) return null;
  const { rows } = await q.query<{ filename: string; mime_type: string; size_bytes: string; sha256: string; stored_name: string }>(
    `SELECT filename, mime_type, size_bytes::text AS size_bytes, sha256, stored_name FROM skillgate.web_uploads
      WHERE id = $1 AND org_id = $2 AND contact_key = $3`,
    [args.id, args.orgId, args.contactKey],
  );
  const r = rows[0];
  if (!r || !/^[0-9a-f]{32}$/.test(r.stored_name)) return null;
  return {
    upload_id: args.id,
    filename: r.filename,
    mime_type: r.mime_type,
    size: Number(r.size_bytes),
    sha256: r.sha256,
    path: join(uploadsDir(args.dataDir), r.stored_name),
  };
}

/** Read an upload's bytes. @throws when the file is gone. */
export async function readUpload(u: StoredUpload): Promise<Buffer> {
  return readFile(u.path);
}
