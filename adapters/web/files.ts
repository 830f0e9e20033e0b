/**
 * `GET /files/:id` (docs/adapter-authoring.md): a session attachment (`skillgate.attachments` of a
 * session whose `owner_key` is the signed-in contact) or one of the contact's own uploads.
 * Anything else — unknown id, someone else's file, not signed in — is the same 404.
 * Raster images are shown inline; everything else (SVG and HTML included) downloads.
 */
import { realpath } from 'node:fs/promises';
import { sep } from 'node:path';
import type { Request, Response } from 'express';
import type { Queryable } from '../../src/channel/index.ts';
import { findOwnUpload } from './uploads.ts';

/** MIME types served inline (raster images only: no script can run in them). */
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif', 'image/bmp']);

function rfc5987(s: string): string {
  return encodeURIComponent(s).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

/**
 * A `Content-Disposition` value keeping the exact Unicode name (RFC 6266 / RFC 5987
 * `filename*=UTF-8''…`) with an ASCII `filename="…"` fallback for old clients.
 */
export function contentDisposition(type: 'inline' | 'attachment', filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_') || 'file';
  return `${type}; filename="${fallback}"; filename*=UTF-8''${rfc5987(filename)}`;
}

/** A file the signed-in contact may download. */
interface Servable {
  path: string;
  filename: string;
  mimeType: string;
}

async function within(dir: string, file: string): Promise<string | null> {
  try {
    const [d, f] = await Promise.all([realpath(dir), realpath(file)]);
    return f.startsWith(d.endsWith(sep) ? d : d + sep) ? f : null;
  } catch {
    return null;
  }
}

/**
 * Find file `id` for `contactKey` of `orgId`: an own upload (`up_…`), else an attachment of a
 * session the contact owns (owner key = the contact key, or `web:<contact key>` when the
 * directory did not know the sender), confined to the session workspace.
 * @throws the database error.
 */
export async function findServable(
  q: Queryable,
  args: { dataDir: string; orgId: string; contactKey: string; id: string },
): Promise<Servable | null> {
  if (args.id.startsWith('up_')) {
    const u = await findOwnUpload(q, args);
    return u ? { path: u.path, filename: u.filename, mimeType: u.mime_type } : null;
  }
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(args.id)) return null;
  const { rows } = await q.query<{ filename: string; local_path: string; mime: string | null; workspace_dir: string }>(
    `SELECT a.filename, a.local_path, a.mime, s.workspace_dir
       FROM skillgate.attachments a JOIN skillgate.sessions s ON s.id = a.session_id
      WHERE a.id = $1 AND s.org_id = $2 AND s.owner_key IN ($3, $4) AND a.local_path <> ''`,
    [args.id, args.orgId, args.contactKey, `web:${args.contactKey}`],
  );
  const r = rows[0];
  if (!r) return null;
  const path = await within(r.workspace_dir, r.local_path);
  return path ? { path, filename: r.filename, mimeType: r.mime || 'application/octet-stream' } : null;
}

/** Send a found file with safe headers (nosniff, sandboxing CSP, private caching). */
export function serveFile(res: Response, f: Servable, req: Request): void {
  const inline = INLINE_TYPES.has(f.mimeType.toLowerCase());
  res.setHeader('Content-Type', f.mimeType);
  res.setHeader('Content-Disposition', contentDisposition(inline ? 'inline' : 'attachment', f.filename));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; img-src 'self'; sandbox");
  res.setHeader('Cache-Control', 'private, max-age=0, must-revalidate');
  res.sendFile(f.path, { dotfiles: 'allow', lastModified: true }, (err) => {
    if (err && !res.headersSent) res.status(404).end();
    else if (err) req.socket.destroy();
  });
}
