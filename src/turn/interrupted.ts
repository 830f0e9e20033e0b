/**
 * A turn taken over after a crash whose skill call had started (docs/recovery.md): the skill
 * is not called again blindly. The person is told the gateway restarted while it ran and is
 * offered to run it again — a button where the channel has them, else the 「确认」 reply —
 * through the confirmation flow (src/turn/confirm-flow.ts, kind `retry`): on 「确认」 the
 * gateway calls the same skill with the same input once more.
 */
import { randomBytes } from 'node:crypto';
import type { OutboundMessage } from '../channel/types.ts';
import type { StartedCall } from '../inbox/types.ts';
import { rememberConfirm } from './confirm-flow.ts';
import { CONFIRM_TTL_MS } from './confirm-tokens.ts';
import { notice } from './notices.ts';
import { confirmTextInstruction } from './reply/confirm.ts';
import type { TurnContext } from './turn.ts';

/** What {@link offerRetry} needs besides the turn. */
export interface RetryDeps {
  db: Parameters<typeof rememberConfirm>[0];
  secretKey: Buffer;
  now(): Date;
}

/** Remember the interrupted call as a `retry` request and tell the person (the turn's reply). */
export async function offerRetry(ctx: TurnContext, call: StartedCall, deps: RetryDeps): Promise<void> {
  const { lang } = ctx;
  const prompt = notice(lang, 'interrupted', { skill: call.skill });
  const token = `rt_${randomBytes(24).toString('base64url')}`;
  const now = deps.now();
  const expiresAt = await rememberConfirm(deps.db, deps.secretKey, {
    kind: 'retry',
    sessionId: ctx.session.id,
    actorKey: ctx.actor.contactKey,
    tool: call.skill,
    args: call.input,
    token,
    prompt,
    expiresInS: CONFIRM_TTL_MS / 1000,
    now,
  });
  const buttons = ctx.adapter.capabilities.buttons;
  const message: OutboundMessage = {
    kind: 'reply',
    text: buttons ? '' : `${prompt}\n\n${confirmTextInstruction(lang)}`,
    format: 'plain',
    reply_to: ctx.msg.message_id,
    final: true,
    ...(buttons
      ? {
          confirm: {
            token,
            prompt_md: prompt,
            options: [
              { id: 'confirm', label: notice(lang, 'run_again'), style: 'primary' },
              { id: 'cancel', label: notice(lang, 'not_now'), style: 'secondary' },
            ],
            expires_at: expiresAt.toISOString(),
          },
        }
      : {}),
  };
  await ctx.send([message]);
}
