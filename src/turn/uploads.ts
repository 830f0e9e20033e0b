/**
 * Inbound attachments into the session workspace (R-CTX-05,
 * R-FILE-03): each file the user sent is fetched through its adapter, saved in the workspace
 * root under its original Unicode name made safe, and registered with a reference id
 * (`img_1`, `file_1`, …) so this and later turns can refer to it.
 */
import { AttachmentTooLargeError } from '../channel/errors.ts';
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChannelAdapter, InboundAttachment, InboundMessage } from '../channel/types.ts';
import { placeFile, sanitizeFilename } from '../envelope/artifacts/filename.ts';
import type { Logger } from '../log/logger.ts';
import { registerAttachment, type AttachmentRecord } from '../session/attachments.ts';
import type { Queryable } from '../store/db.ts';
import { mimeTypes } from '../config/lazy-packages.ts';

/** Largest inbound file the gateway stores, bytes (Telegram bots download ≤ 20 MB; web ≤ 50 MiB). */
export const MAX_INBOUND_BYTES = 100 * 1024 * 1024;

/** The outcome of {@link storeInboundAttachments}. */
export interface StoredUploads {
  stored: AttachmentRecord[];
  /** Files that could not be fetched or stored: name (or kind) and a short reason. */
  failed: { filename: string; error: string; limit_bytes?: number }[];
}

function fallbackName(att: InboundAttachment, mimeType: string | null | undefined, index: number): string {
  const ext = mimeType ? mimeTypes().extension(mimeType) : false;
  const stem = `${att.type}_${Date.now().toString(36)}_${index + 1}`;
  return ext ? `${stem}.${ext}` : stem;
}

/**
 * Fetch and store every attachment of `msg` in `workspaceDir`; register each in the session.
 * A name already used by another file gets `_1`, `_2`, …; the same content again reuses its
 * file (a redelivered or re-run turn stores nothing twice). Never throws for one file's
 * failure (it is reported in `failed`); throws on database errors.
 */
export async function storeInboundAttachments(
  q: Queryable,
  args: { adapter: ChannelAdapter | undefined; msg: InboundMessage; sessionId: string; workspaceDir: string; log: Logger },
): Promise<StoredUploads> {
  const out: StoredUploads = { stored: [], failed: [] };
  const { adapter, msg } = args;
  for (const [i, att] of msg.attachments.entries()) {
    const label = att.filename ?? att.type;
    if (!adapter?.fetchAttachment) {
      out.failed.push({ filename: label, error: 'the channel cannot download files' });
      continue;
    }
    try {
      const fetched = await adapter.fetchAttachment(att, msg);
      if (fetched.data.length > MAX_INBOUND_BYTES) {
        out.failed.push({ filename: label, error: `larger than ${MAX_INBOUND_BYTES} bytes`, limit_bytes: MAX_INBOUND_BYTES });
        continue;
      }
      const mimeType = att.mime_type ?? fetched.mime_type ?? null;
      const name = sanitizeFilename(att.filename ?? fetched.filename ?? '') ?? fallbackName(att, mimeType, i);
      const digest = createHash('sha256').update(fetched.data).digest('hex');
      const tmp = join(args.workspaceDir, `.upload-${randomBytes(8).toString('hex')}`);
      await writeFile(tmp, fetched.data, { mode: 0o600 });
      const localPath = await placeFile(tmp, args.workspaceDir, name, digest);
      const rec = await registerAttachment(q, {
        sessionId: args.sessionId,
        type: att.type,
        filename: localPath.slice(args.workspaceDir.length + 1),
        localPath,
        origin: 'upload',
        ...(mimeType ? { mime: mimeType } : {}),
        sizeBytes: fetched.data.length,
      });
      out.stored.push(rec);
    } catch (err) {
      args.log.warn({ channel: msg.channel, err: (err as Error).message }, 'inbound attachment could not be stored');
      const entry: StoredUploads['failed'][number] = { filename: label, error: (err as Error).message.split('\n')[0] ?? 'failed' };
      if (err instanceof AttachmentTooLargeError) entry.limit_bytes = err.limitBytes;
      out.failed.push(entry);
    }
  }
  return out;
}
