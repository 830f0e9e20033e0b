/**
 * The background result as outbound messages (R-ASYNC-03, A-48): the envelope composed the
 * way a turn composes a reply (text, display_md, artifacts as media) for the originating
 * channel's capabilities; a failure is composed from its `user_message` (never a stack).
 */
import type { AdapterCapabilities, OutboundMessage } from '../channel/types.ts';
import type { Envelope } from '../envelope/types.ts';
import { listAttachments } from '../session/attachments.ts';
import type { Queryable } from '../store/db.ts';
import { composeReply } from '../turn/reply/index.ts';
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
 * through the session's attachment records (`/files/<id>`), as in a turn.
 * @throws the database error of the attachment lookup.
 */
export async function resultMessages(
  q: Queryable,
  job: Pick<AsyncJobData, 'tool' | 'input' | 'lang' | 'origin'>,
  envelope: Envelope,
  capabilities: AdapterCapabilities,
  sessionId: string,
): Promise<OutboundMessage[]> {
  const records = await listAttachments(q, sessionId);
  return composeReply({
    plannerText: '',
    invocations: [{ tool: job.tool, args: job.input, envelope }],
    capabilities,
    lang: job.lang,
    replyTo: job.origin.reply_to ?? null,
    mediaFor: mediaResolver(records),
  });
}
