/**
 * Rendering and splitting one outbound text, as plain data in and out (docs/operations-delivery.md
 * "Long replies"): the same pure step runs in place or in the render worker
 * (adapters/telegram/reply-worker.ts), so a long reply is rendered and split away from the event loop.
 */
import { renderPlain, splitReply, type SplitReplyOptions, type SplitUnit } from '../../src/channel/index.ts';
import { renderTelegramHtml } from './render.ts';

/** The markdown renderers a job may name; `none`: the text is sent as it is. */
export const REPLY_DIALECTS = {
  none: (md: string): string => md,
  telegram: renderTelegramHtml,
  plain: renderPlain,
} as const;

/** A dialect of {@link REPLY_DIALECTS}. */
export type ReplyDialect = keyof typeof REPLY_DIALECTS;

/** One text to render once and split once ({@link splitReply}). */
export interface ReplyJob {
  dialect: ReplyDialect;
  text: string;
  /** Each part's limit in `unit`. */
  max: number;
  unit: SplitUnit;
  split: SplitReplyOptions;
}

/** What a {@link ReplyJob} gives: the whole rendering and its parts. */
export interface ReplyJobResult {
  rendered: string;
  parts: string[];
}

/** Run a job in place. Linear in the (core-bounded) text. @throws RangeError as {@link splitReply}. */
export function runReplyJob(job: ReplyJob): ReplyJobResult {
  const rendered = REPLY_DIALECTS[job.dialect](job.text);
  return { rendered, parts: rendered.trim() === '' ? [] : splitReply(rendered, job.max, job.unit, job.split) };
}
