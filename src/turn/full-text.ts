/**
 * The whole text of a cut reply, kept as a file (docs/operations-delivery.md "Long replies",
 * docs/requirements.md#R-OFF-01): a reply bounded to a few messages names the file that holds all
 * of it, and a channel that sends files sends it with the reply.
 */
import type { OutboundMedia, OutboundMessage } from '../channel/types.ts';
import { writeFullText } from '../envelope/offload.ts';
import { registerAttachment } from '../session/attachments.ts';
import type { Queryable } from '../store/db.ts';
import { composeReply, type ComposeArgs } from './reply/index.ts';
import type { Lang } from './reply/text.ts';

/**
 * Write `text` as the session's full-text file ({@link writeFullText}) and register it as a file of
 * the session, so it is served and sent like an artifact.
 * @returns the media item of the file.
 * @throws the file system or database error.
 */
export async function keepFullText(
  q: Queryable,
  session: { id: string; workspaceDir: string },
  text: string,
  lang: Lang,
  now: Date = new Date(),
): Promise<OutboundMedia> {
  const file = await writeFullText(session.workspaceDir, text, lang, now);
  const rec = await registerAttachment(q, {
    sessionId: session.id,
    type: 'file',
    filename: file.filename,
    localPath: file.path,
    origin: 'artifact',
    mime: 'text/markdown',
    sizeBytes: file.size,
  });
  return { kind: 'file', path: file.path, filename: file.filename, mime_type: 'text/markdown', size: file.size, file_id: rec.id };
}

/**
 * {@link composeReply}, and when the body is cut: the whole body kept by `keep` and the reply
 * composed again around that file. A `keep` that fails leaves the reply as first composed
 * (cut, its notice naming no file) and is reported to `onError`.
 */
export async function composeKeepingFull(
  args: ComposeArgs,
  keep: (text: string) => Promise<OutboundMedia>,
  onError: (err: unknown) => void = () => undefined,
): Promise<OutboundMessage[]> {
  let whole: string | null = null;
  const first = composeReply({
    ...args,
    onCut: (text) => {
      whole = text;
    },
  });
  if (whole === null) return first;
  let file: OutboundMedia;
  try {
    file = await keep(whole);
  } catch (err) {
    onError(err);
    return first;
  }
  return composeReply({ ...args, fullText: file });
}
