/**
 * What the turn adds around reply composition: remembering confirmation requests and
 * mapping artifacts to servable media (§7).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { OutboundMedia } from '../channel/types.ts';
import type { ArtifactRef } from '../envelope/types.ts';
import type { AttachmentRecord } from '../session/attachments.ts';
import type { Queryable } from '../store/db.ts';
import { rememberConfirm } from './confirm-flow.ts';
import type { ToolInvocation } from './planner.ts';
import { mimeTypes } from '../config/lazy-packages.ts';

/**
 * Remember every confirmation request among `invocations` (an envelope with a string
 * `confirm_token`), so a button press or 「确认」 re-invokes that call. @throws the database error.
 */
export async function rememberConfirms(
  q: Queryable,
  secretKey: Buffer,
  r: { sessionId: string; actorKey: string; invocations: ToolInvocation[]; now: Date },
): Promise<void> {
  for (const inv of r.invocations) {
    const token = inv.envelope.confirm_token;
    if (typeof token !== 'string' || token === '') continue;
    const prompt = [inv.envelope.user_message, inv.envelope.message].find((v): v is string => typeof v === 'string' && v !== '') ?? '';
    const expiresInS = typeof inv.envelope.expires_in_s === 'number' ? inv.envelope.expires_in_s : undefined;
    await rememberConfirm(q, secretKey, {
      sessionId: r.sessionId,
      actorKey: r.actorKey,
      tool: inv.tool,
      args: inv.args,
      token,
      prompt,
      expiresInS,
      now: r.now,
    });
  }
}

/** The file's size in bytes, or null when it cannot be read. */
function sizeOf(path: string): number | null {
  try {
    return statSync(path).size;
  } catch {
    return null;
  }
}

/**
 * A resolver from an envelope artifact to an outbound media item: the session attachment
 * with the same local path gives the `/files/<id>` id; an artifact not registered in the
 * session is not sent (null). The item carries what an adapter dispatches on (R-ART-11): `kind`
 * (the attachment's media), `mime_type` — the stored one, else
 * looked up from the file extension (artifacts are registered without one) — and `size`
 * (stored, else read from the file), so e.g. Telegram sends a `.svg` or an over-10-MB image
 * as a document rather than a photo the platform rejects.
 */
export function mediaResolver(records: readonly AttachmentRecord[]): (artifact: ArtifactRef) => OutboundMedia | null {
  const byPath = new Map(records.filter((r) => r.localPath).map((r) => [resolve(r.localPath), r]));
  return (artifact) => {
    const rec = byPath.get(resolve(artifact.local_path));
    if (!rec) return null;
    return {
      kind: rec.type,
      path: rec.localPath,
      filename: rec.filename,
      mime_type: rec.mime ?? (mimeTypes().lookup(rec.filename) || null),
      size: rec.sizeBytes ?? sizeOf(rec.localPath),
      file_id: rec.id,
    };
  };
}
