/**
 * The body of the built-in skill `web` (skills/web/): a person asks the bot, on any channel
 * where they are in the directory, for a web chat sign-in link (`/web`, 「网页登录」). The link
 * (src/web-auth/signin-links.ts) is bound to their contact, single use, 10 minutes, and sent
 * only to them: as a message of its own into the direct chat the request came from, through
 * the outbox — never in the skill's result, so no planner or model sees it. A request from a
 * group chat, from a sender not in the directory, or outside the gateway is refused.
 * Results are envelopes (docs/results.md). Never throws. A messaging skill like send_message
 * (send-message.ts), so it sits with them; it uses the web channel's link store as the console does.
 */
import type { InboundMessage } from '../channel/types.ts';
import { loadSettings } from '../config/settings.ts';
import { langOf, messagingOf } from './messaging.ts';
import { findContact } from '../identity/contacts.ts';
import { identityDirectory } from '../web-auth/directory.ts';
import { issueSigninLink, signinBase, SIGNIN_LINK_TTL_MS } from '../web-auth/signin-links.ts';

const T = {
  'zh-CN': {
    unavailable: '这里不能发网页登录链接（没有运行中的网关）。',
    group: '为了安全，登录链接只发私聊：请私聊我发送 /web 或「网页登录」。',
    unknown: '你还不在通讯录里，不能获取网页登录链接。请联系管理员把你加入通讯录。',
    link: (url: string, min: number) => `网页聊天登录链接（${min} 分钟内有效，只能使用一次，请勿转发）：\n${url}`,
    sent: (min: number) => `已把网页登录链接单独发给你（${min} 分钟内有效，只能用一次）。`,
  },
  en: {
    unavailable: 'A web sign-in link cannot be sent from here (no running gateway).',
    group: 'For your safety sign-in links go to direct chats only: send /web to me in a direct chat.',
    unknown: 'You are not in the directory yet, so no web sign-in link can be issued. Ask an operator to add you.',
    link: (url: string, min: number) => `Your web chat sign-in link (valid for ${min} minutes, works once, do not forward it):\n${url}`,
    sent: (min: number) => `The web sign-in link was sent to you in a message of its own (valid for ${min} minutes, works once).`,
  },
} as const;

function refused(message: string, refusal: string): Record<string, unknown> {
  return { success: false, error: message, error_type: 'recoverable', user_message: message, refusal };
}

function isInbound(v: unknown): v is InboundMessage {
  return (
    !!v && typeof v === 'object' && typeof (v as InboundMessage).channel === 'string' && typeof (v as InboundMessage).chat?.id === 'string'
  );
}

/** Issue and send the link. @returns `{success:true, sent:true, expires_at}` or a refusal envelope. */
export async function runWebSigninRequest(input: Record<string, unknown>, ctx: Record<string, unknown>): Promise<Record<string, unknown>> {
  const t = T[langOf(input, ctx)];
  const messaging = messagingOf(ctx);
  const msg = ctx.request;
  if (!messaging || !isInbound(msg)) return refused(t.unavailable, 'unavailable');
  if (msg.chat.type !== 'direct') return refused(t.group, 'not_direct');
  const orgId = typeof ctx.org_id === 'string' ? ctx.org_id : '';
  const contactKey = typeof ctx.actor_key === 'string' ? ctx.actor_key : '';
  const contact =
    orgId && contactKey
      ? await identityDirectory(messaging.db, findContact)
          .find(orgId, contactKey)
          .catch(() => null)
      : null;
  if (!contact) return refused(t.unknown, 'not_in_directory');
  const nowMs = messaging.now?.().getTime() ?? Date.now();
  const settings = loadSettings();
  const link = await issueSigninLink(messaging.db, orgId, contact.contact_key, {
    via: `chat:${msg.channel}`,
    nowMs,
    base: signinBase(settings.publicUrl, settings.port),
  });
  const minutes = Math.round(SIGNIN_LINK_TTL_MS / 60_000);
  await messaging.outbox.enqueue(messaging.db, [
    {
      target: {
        channel: msg.channel,
        account: msg.account,
        chat_id: msg.chat.id,
        thread_id: msg.chat.thread_id ?? null,
        chat_type: 'direct',
      },
      message: { kind: 'reply', text: t.link(link.url, minutes), format: 'plain', final: true },
      idempotency_key: `web_signin:${msg.channel}:${msg.account}:${msg.dedupe_key}`,
      origin: { web_signin_for: contact.contact_key },
    },
  ]);
  return {
    success: true,
    sent: true,
    expires_at: link.expiresAt.toISOString(),
    user_message: t.sent(minutes),
    display_md: t.sent(minutes),
    display_only: true,
  };
}
