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

/**
 * The replica no longer holds the lease of a long connection (docs/operations-delivery.md "One
 * owner per long connection"): the host refuses the event; the adapter must not confirm it to
 * the platform (no offset advance, no ack), so the lease's new holder receives it.
 */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(readonly key: string) {
    super(`the lease of ${key} is held by another replica`);
  }
}
