/**
 * Media a web user may open although it comes from someone else's session: `send_message`
 * to `web:<contact key>` (docs/messaging.md) carries files of the SENDER's workspace, which
 * `GET /files/<id>` would never serve to the recipient (it serves own uploads and attachments
 * of own sessions only). Such an item — a `path` without a `file_id` — is copied into the
 * upload store as an upload owned by the recipient (`up_…` id, 128 random bits), so the
 * recipient, and only they, can fetch it; items that already have an id are left alone.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import mime from 'mime-types';
import type { OutboundMedia, OutboundMessage } from '../../src/channel/index.ts';
import type { WebContext } from './context.ts';
import { newUploadId, uploadsDir } from './uploads.ts';

/**
 * `message` with every id-less media file stored as an upload of `contactKey`.
 * @throws the file-system or database error (the caller's send fails retryably)
 */
export async function mediaForRecipient(
  ctx: Pick<WebContext, 'db' | 'dataDir' | 'orgId'>,
  contactKey: string,
  message: OutboundMessage,
): Promise<OutboundMessage> {
  if (!message.media?.some((m) => !m.file_id && m.path)) return message;
  const dir = uploadsDir(ctx.dataDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const media: OutboundMedia[] = [];
  for (const m of message.media) {
    if (m.file_id || !m.path) {
      media.push(m);
      continue;
    }
    const data = await readFile(m.path);
    const stored = randomBytes(16).toString('hex');
    await writeFile(join(dir, stored), data, { mode: 0o600 });
    const id = newUploadId();
    const type = m.mime_type || mime.lookup(m.filename) || 'application/octet-stream';
    await ctx.db.query(
      `INSERT INTO skillgate.web_uploads (id, org_id, contact_key, filename, mime_type, size_bytes, sha256, stored_name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, ctx.orgId, contactKey, m.filename, type, data.length, createHash('sha256').update(data).digest('hex'), stored],
    );
    media.push({ ...m, file_id: id, size: m.size ?? data.length });
  }
  return { ...message, media };
}
