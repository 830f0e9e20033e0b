/**
 * Reply composition (docs/results.md): from the planner's text and
 * tool invocations to the outbound messages of one turn, for one adapter's capabilities.
 *
 * Steps: the body parts (planner text, or per invocation a faithful rendering when there is
 * no planner text; each display_md) → the display rules ({@link selectParts}, R-DISP-01..05,
 * A-16) → next steps (`for_user`) → on text channels the plain rendering (D-22) → the
 * confirmation (buttons or a text instruction) → artifacts as media (R-DISP-06) → one message,
 * bounded (src/channel/long-reply.ts). The adapter renders it and splits the rendering to its
 * own limit (src/channel/split-reply.ts); nothing here splits.
 */
import { boundReply, REPLY_MAX_PARTS } from '../../channel/long-reply.ts';
import { renderPlain } from '../../channel/render/plain.ts';
import type { AdapterCapabilities, OutboundConfirm, OutboundMedia, OutboundMessage } from '../../channel/types.ts';
import type { ArtifactRef } from '../../envelope/types.ts';
import type { ToolInvocation } from '../planner.ts';
import { confirmOf, confirmPrompt, confirmTextInstruction } from './confirm.ts';
import { displayOf, selectParts, type BodyPart } from './display.ts';
import { questionPart } from './question.ts';
import { failureText, isFailure, nextSteps, nextStepsMd, successText } from './envelope-text.ts';
import { escapeMarkdown } from './result-md.ts';
import { t, type Lang } from './text.ts';

export { modelView, failureText, successText, nextSteps, stripStack, isFailure } from './envelope-text.ts';
export { selectParts, displayOf, type BodyPart } from './display.ts';
export { confirmOf } from './confirm.ts';
export { renderResultMd } from './result-md.ts';

/** What {@link composeReply} needs. */
export interface ComposeArgs {
  /** The planner's own reply, markdown ("" when the tool results speak for themselves). */
  plannerText: string;
  invocations: ToolInvocation[];
  capabilities: AdapterCapabilities;
  lang: Lang;
  /** The planner's text already paraphrases every display_md (a model did it; D-22). */
  paraphrased?: boolean;
  /** The platform message id the reply answers. */
  replyTo?: string | null;
  /**
   * Map an artifact to a servable media item (the turn maps local paths to `/files/<id>`);
   * null = not sendable (skipped). Default: the artifact's own path, kind from `media`.
   */
  mediaFor?: (artifact: ArtifactRef) => OutboundMedia | null;
  /** Clock for confirmation expiry (default `() => new Date()`). */
  now?: () => Date;
  /** Questions the turn remembered (src/turn/choice-flow.ts): their tokens by invocation index. */
  choices?: ReadonlyMap<number, { token: string; expiresAt: Date }>;
  /**
   * Called with the whole body (markdown, before next steps) when it is cut to a bounded size:
   * the caller keeps it as a file (src/turn/full-text.ts) and composes again with `fullText`.
   */
  onCut?: (fullText: string) => void;
  /**
   * The file that holds the whole body of a cut reply: the cut notice names it, and a channel
   * with media sends it with the reply (docs/operations-delivery.md "Long replies").
   */
  fullText?: OutboundMedia | null;
}

function defaultMedia(a: ArtifactRef): OutboundMedia {
  return { kind: a.media, path: a.local_path, filename: a.filename };
}

function artifactsOf(inv: ToolInvocation): ArtifactRef[] {
  const list = inv.envelope.artifacts;
  return Array.isArray(list)
    ? list.filter(
        (a): a is ArtifactRef => !!a && typeof a === 'object' && typeof a.filename === 'string' && typeof a.local_path === 'string',
      )
    : [];
}

/**
 * Compose the outbound message of one turn: a list of exactly one (callers add notes to it and
 * queue it as one outbox row). Pure apart from `mediaFor`/`now`/`onCut`.
 *
 * - Rich channels (`display: 'rich'`): `format: 'markdown'`; the body is the planner text then
 *   each display_md in order, under the display_only rules; the selected blocks also go in
 *   `display_md` of the first message.
 * - Text channels: the same selection rendered by `renderPlain`, `format: 'plain'`; when
 *   `paraphrased`, only the planner text (a model already reworded the blocks).
 * - No planner text: each invocation without display_md is shown faithfully (`user_message`,
 *   message, a table/JSON of the result; failures as a generic message — never a stack trace).
 * - `for_user` next steps listed under 「可继续的操作：」 for every invocation whose part is shown.
 * - `confirm_token`: an {@link OutboundConfirm} on the last message (buttons), or the
 *   「回复「确认」继续…」 line on channels without buttons.
 * - Artifacts: media items on the last message; without media capability a 「文件：name」 line.
 * - Bounded to `REPLY_MAX_PARTS - 1` messages of `max_length`/`length_unit` (the cut notice
 *   ends it; `omitted` says how much was left out); `lang` set for the adapter's own notice;
 *   `final: true`. A cut body is handed to `onCut`; with `fullText` the notice names that file
 *   (`full_text_file`) and a media channel gets it as the last media item.
 */
export function composeReply(args: ComposeArgs): OutboundMessage[] {
  const { capabilities: caps, lang } = args;
  const rich = caps.display === 'rich';
  const now = (args.now ?? (() => new Date()))();
  const plannerText = args.plannerText.trim();

  // 1. Body parts in order, then the display rules.
  const parts: BodyPart[] = [];
  const exclusive: boolean[] = [];
  if (plannerText !== '') {
    parts.push({ kind: 'own', md: plannerText, from: -1 });
    exclusive.push(false);
  }
  let confirm: OutboundConfirm | null = null;
  args.invocations.forEach((inv, i) => {
    const asked = questionPart(inv, args.choices?.get(i), caps, lang);
    if (asked) {
      if (asked.buttons) confirm = asked.buttons;
      if (asked.md) {
        parts.push({ kind: 'own', md: asked.md, from: i });
        exclusive.push(false);
      }
      return;
    }
    const c = confirmOf(inv.envelope, lang, now);
    if (c) confirm = c; // the last request wins (a turn normally has one)
    const display = displayOf(inv);
    if (display) {
      parts.push({ kind: 'display', md: display.md, from: i });
      exclusive.push(display.exclusive);
    } else if (plannerText === '') {
      // The prompt of a confirmation is shown by the buttons on button channels.
      const md = c
        ? caps.buttons
          ? ''
          : confirmPrompt(inv.envelope)
        : isFailure(inv.envelope)
          ? failureText(inv.envelope, lang)
          : successText(inv.envelope, lang);
      if (md !== '') {
        parts.push({ kind: 'own', md, from: i });
        exclusive.push(false);
      }
    }
  });
  const shown = selectParts(parts, exclusive);
  const displayBlocks = shown.filter((p) => p.kind === 'display').map((p) => p.md);

  // 2. Next steps of the invocations still shown (or all when only the planner text is).
  const shownFrom = new Set(shown.map((p) => p.from));
  const steps = args.invocations.flatMap((inv, i) => (shownFrom.has(i) || !parts.some((p) => p.from === i) ? nextSteps(inv.envelope) : []));

  let sections: string[];
  if (!rich && args.paraphrased) sections = plannerText !== '' ? [plannerText] : [];
  else sections = shown.map((p) => p.md);
  // A reply of any size is cut to a bounded number of messages before anything walks it
  // (one message's room is left for next steps, the confirmation line and file names).
  const main = sections.filter((s) => s.trim() !== '').join('\n\n');
  const full = args.fullText ?? null;
  const fileRef = full ? { name: full.filename, attached: caps.media } : null;
  const bounded = boundReply(main, caps.max_length, caps.length_unit, { lang, maxParts: REPLY_MAX_PARTS - 1, file: fileRef });
  if (bounded.cut) {
    sections = [bounded.text];
    args.onCut?.(main);
  }
  const stepsMd = nextStepsMd(steps, lang);
  if (stepsMd) sections.push(stepsMd);

  // 3. Confirmation without buttons → a text instruction.
  const confirmValue = confirm as OutboundConfirm | null;
  if (confirmValue && !caps.buttons) sections.push(confirmTextInstruction(lang));

  // 4. Artifacts.
  const media: OutboundMedia[] = [];
  const mediaFor = args.mediaFor ?? defaultMedia;
  for (const inv of args.invocations) {
    for (const a of artifactsOf(inv)) {
      if (caps.media) {
        const m = mediaFor(a);
        if (m) media.push(m);
      } else sections.push(`${t(lang, 'file')}${escapeMarkdown(a.filename)}`);
    }
  }

  if (bounded.cut && full && caps.media) media.push(full);

  let body = sections.filter((s) => s.trim() !== '').join('\n\n');
  if (!rich) body = renderPlain(body);
  if (body === '' && media.length === 0 && !(confirmValue && caps.buttons)) body = t(lang, 'done');

  const message: OutboundMessage = {
    kind: 'reply',
    text: body,
    format: rich ? 'markdown' : 'plain',
    reply_to: args.replyTo ?? null,
    lang,
    ...(bounded.cut ? { omitted: bounded.omitted } : {}),
    ...(bounded.cut && full ? { full_text_file: full.filename } : {}),
    // A cut reply carries the kept part of the blocks in `text` only (never an unbounded copy).
    ...(rich && displayBlocks.length && !bounded.cut ? { display_md: displayBlocks.join('\n\n') } : {}),
  };
  if (media.length) message.media = media;
  if (confirmValue && caps.buttons) message.confirm = confirmValue;
  message.final = true;
  return [message];
}
