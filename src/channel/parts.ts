/**
 * Resuming a message that goes out as several platform messages (text chunks, media, captions,
 * a button card). When one part fails, the outbox retries the whole outbound message; without
 * this the parts delivered by the failed attempt would reach the user twice. Every adapter
 * counts its visible parts through one {@link PartCursor}: parts below `SendOptions.partsDone`
 * (delivered by earlier attempts, stored on the outbox row) are skipped, and a failure reports
 * how many parts are delivered so far (`SendResult.parts_done`) together with the ids this
 * attempt produced (`message_ids`).
 *
 * The adapter must build its parts in the same order on every attempt (the message is stored,
 * rendering is deterministic), so part k of a retry is part k of the first attempt.
 */

import type { SendResult } from './types.ts';

/** Counts the visible parts of one send and skips those an earlier attempt delivered. */
export class PartCursor {
  /** Index of the next part (skipped parts included). */
  #index = 0;
  /** Parts delivered by earlier attempts (skipped here). */
  readonly #skip: number;
  /** Platform message ids of the parts this attempt delivered, in order. */
  readonly ids: string[] = [];

  /** The marker of the part whose earlier send had an unknown outcome (`SendOptions.resendMarker`), or "". */
  readonly #marker: string;

  /**
   * @param partsDone parts delivered by earlier attempts (`SendOptions.partsDone`; 0 or absent = none)
   * @param resendMarker `SendOptions.resendMarker`: shown on part `partsDone` (see {@link PartCursor.marked})
   */
  constructor(partsDone: number | null | undefined, resendMarker?: string | null) {
    this.#skip = Number.isInteger(partsDone) && (partsDone as number) > 0 ? (partsDone as number) : 0;
    this.#marker = resendMarker ?? '';
  }

  /**
   * `text` of the next part, with the resend marker in front when this part is the one an
   * earlier attempt may have delivered already (docs/operations-delivery.md "Unknown outcomes");
   * for adapters whose platform has no idempotency key.
   */
  marked(text: string): string {
    return this.#marker !== '' && this.#index === this.#skip ? `${this.#marker}${text}` : text;
  }

  /**
   * Deliver the next part with `send` unless an earlier attempt delivered it. `send` returns the
   * platform message id(s) of the part (`null`/`undefined` when the platform gives none).
   * @returns true when the part was sent now, false when it was skipped
   * @throws what `send` throws (the part then does not count as delivered)
   */
  async part(send: () => Promise<string | number | readonly (string | number)[] | null | undefined>): Promise<boolean> {
    if (this.#index < this.#skip) {
      this.#index++;
      return false;
    }
    const got = await send();
    this.#index++;
    if (got === null || got === undefined) return true;
    for (const id of Array.isArray(got) ? got : [got]) this.ids.push(String(id));
    return true;
  }

  /** True when the next part was delivered by an earlier attempt (lets an adapter skip work such as an upload). */
  get skipping(): boolean {
    return this.#index < this.#skip;
  }

  /** Parts delivered so far, earlier attempts included: the `parts_done` of a failure. */
  get done(): number {
    return this.#index;
  }

  /** A failed `result` with this send's progress (`parts_done`, and the ids delivered in this attempt) added. */
  fail(result: SendResult): SendResult {
    return !result.ok && this.#index > 0 ? { ...result, parts_done: this.#index, message_ids: [...this.ids] } : result;
  }
}
