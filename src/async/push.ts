/**
 * The background result as outbound messages (R-ASYNC-03, A-48): the envelope composed the
 * way a turn composes a reply (text, display_md, artifacts as media) for the originating
 * channel's capabilities; a failure is composed from its `user_message` (never a stack).
 */
import type { AdapterCapabilities, OutboundMessage } from '../channel/types.ts';
import type { Envelope } from '../envelope/types.ts';
import { listAttachments } from '../session/attachments.ts';
import type { Queryable } from '../store/db.ts';
import { getSession } from '../session/sessions.ts';
import { composeKeepingFull, keepFullText } from '../turn/full-text.ts';
import { mediaResolver } from '../turn/reply-support.ts';
import type { AsyncJobData } from './job.ts';

/** Capabilities assumed when the channel's adapter is not loaded in this process. */
export const PLAIN_CAPABILITIES: AdapterCapabilities = {
  display: 'text',
  buttons: false,
  max_length: 4000,
  length_unit: 'utf16',
  typing: false,
  media: true,
};

/**
 * Compose the messages that carry `envelope` back to the job's chat. Artifacts become media
 * through the session's attachment records (`/files/<id>`), as in a turn; a cut reply's whole
 * text is kept as a session file (src/turn/full-text.ts; a failure there goes to `onError`).
 * @throws the database error of the attachment lookup.
 */
export async function resultMessages(
  q: Queryable,
  job: Pick<AsyncJobData, 'tool' | 'input' | 'lang' | 'origin'>,
  envelope: Envelope,
  capabilities: AdapterCapabilities,
  sessionId: string,
  onError?: (err: unknown) => void,
): Promise<OutboundMessage[]> {
  const records = await listAttachments(q, sessionId);
  return composeKeepingFull(
    {
      plannerText: '',
      invocations: [{ tool: job.tool, args: job.input, envelope }],
      capabilities,
      lang: job.lang,
      replyTo: job.origin.reply_to ?? null,
      mediaFor: mediaResolver(records),
    },
    async (text) => {
      const session = await getSession(q, sessionId);
      if (!session) throw new Error(`session ${sessionId} is gone`);
      return keepFullText(q, session, text, job.lang);
    },
    onError,
  );
}
