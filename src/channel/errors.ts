/**
 * Errors an adapter throws across the channel boundary when the core should tell the user
 * something specific (rather than a generic "could not be received").
 */

/**
 * An inbound attachment is over the platform's download limit (Telegram Bot API getFile: 20 MB,
 * https://core.telegram.org/bots/api#getfile). Thrown by `ChannelAdapter.fetchAttachment`; the
 * turn answers with the limit in the user's language and does not retry.
 */
export class AttachmentTooLargeError extends Error {
  override readonly name = 'AttachmentTooLargeError';
  /**
   * @param filename the file name as the user sent it, or null
   * @param limitBytes the platform's limit, bytes
   * @param message log text (may be the adapter's own user-facing wording)
   */
  constructor(
    readonly filename: string | null,
    readonly limitBytes: number,
    message = `attachment ${filename ?? ''} is over the platform's ${limitBytes}-byte download limit`,
  ) {
    super(message);
  }
}
