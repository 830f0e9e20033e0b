/**
 * Answering a question with choices (docs/messaging.md "Questions with choices"): a choice
 * button (`<n>:ch_…`) or a text reply that names an option (its number, value or label) takes
 * the remembered question once and makes the call again with the chosen value as the asked
 * parameter. A question a pending-reply continuation asked goes back through the pending
 * replies, so the waiting record of the chosen value is the one answered. 「取消」 drops the
 * question; any other message leaves it open (until it expires) and is handled as usual.
 */
import type { Queryable } from '../store/db.ts';
import type { ToolInvocation } from './planner.ts';
import { latestChoice, resolveChoice, takeChoiceByToken, type PendingChoice } from './choice-flow.ts';
import { matchChoice } from './reply/question.ts';
import { notice } from './notices.ts';
import type { PendingReplyRouter, TurnContext } from './turn.ts';

/** What answering needs from the turn's dependencies. */
export interface ChoiceDeps {
  services: { db: Queryable };
  pendingReplies?: PendingReplyRouter;
}

async function continueWith(deps: ChoiceDeps, ctx: TurnContext, pending: PendingChoice, index: number): Promise<void> {
  const option = pending.options[index]!;
  if (pending.via === 'pending_reply' && deps.pendingReplies?.answerChoice) {
    const handled = await deps.pendingReplies.answerChoice(ctx, {
      tool: pending.tool,
      args: pending.args,
      param: pending.param,
      value: option.value,
    });
    if (handled) return;
  }
  const args = { ...pending.args, [pending.param]: option.value };
  const envelope = await ctx.invoke(pending.tool, args);
  const invocation: ToolInvocation = { tool: pending.tool, args, envelope, via: pending.via };
  await ctx.reply({ text: '', invocations: [invocation] });
}

/** The question `suggestQuestion` (planners/command-suggest.ts) asks: which skill's help to show. */
function isSuggestion(c: PendingChoice): boolean {
  return c.tool === 'help' && c.param === 'skill';
}

/** A pressed choice button: option id `1`…`n` of the question with `token`. */
export async function answerChoiceButton(deps: ChoiceDeps, ctx: TurnContext, token: string, action: string, now: Date): Promise<void> {
  const pending = await takeChoiceByToken(deps.services.db, { sessionId: ctx.session.id, actorKey: ctx.actor.contactKey, token, now });
  const index = Number(action) - 1;
  if (!pending || !Number.isInteger(index) || index < 0 || index >= pending.options.length) {
    await ctx.notice(notice(ctx.lang, 'no_pending_choice'));
    return;
  }
  await continueWith(deps, ctx, pending, index);
}

/**
 * A text message while a question of this person is open in this session: an answer (or
 * 「取消」) is handled here. @returns false when the message answers nothing (handled as usual).
 */
export async function answerChoiceText(deps: ChoiceDeps, ctx: TurnContext, now: Date): Promise<boolean> {
  if (ctx.msg.kind !== 'message' || ctx.text.startsWith('/') || ctx.text.startsWith('／')) return false;
  const q = deps.services.db;
  const open = await latestChoice(q, { sessionId: ctx.session.id, actorKey: ctx.actor.contactKey, now });
  if (!open) return false;
  if (ctx.input.kind === 'cancel') {
    // The skills suggested for plain text ask nothing of the person: 「取消」 drops them quietly
    // and goes on to what it may mean (a waiting reply, a running call).
    if (isSuggestion(open)) {
      await resolveChoice(q, open.id, 'cancelled', now);
      return false;
    }
    if (await resolveChoice(q, open.id, 'cancelled', now)) await ctx.notice(notice(ctx.lang, 'choice_cancelled'));
    return true;
  }
  const index = matchChoice(open.options, ctx.text);
  if (index === null) return false;
  if (!(await resolveChoice(q, open.id, 'chosen', now))) return false;
  await continueWith(deps, ctx, open, index);
  return true;
}
