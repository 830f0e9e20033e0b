/**
 * Confirmation requests in replies (docs/messaging.md). An envelope carrying a
 * string `confirm_token` (e.g. datatable's delete protection) asks the user: buttons where the
 * channel has them, else a 「回复「确认」继续…」 line (the command grammar accepts 「确认」/「取消」).
 */
import type { OutboundConfirm } from '../../channel/types.ts';
import type { Envelope } from '../../envelope/types.ts';
import { CONFIRM_TTL_MS } from '../confirm-tokens.ts';
import { stripStack } from './envelope-text.ts';
import { t, type Lang } from './text.ts';

/** The token of a confirmation request, or null. */
export function confirmTokenOf(env: Envelope): string | null {
  const tok = env.confirm_token;
  return typeof tok === 'string' && tok !== '' && env.success !== false && env.ok !== false ? tok : null;
}

/** The prompt the user is asked: `user_message`, else `message`, markdown. */
export function confirmPrompt(env: Envelope): string {
  for (const k of ['user_message', 'message'] as const) {
    const v = env[k];
    if (typeof v === 'string' && v.trim() !== '') return stripStack(v);
  }
  return '';
}

/**
 * The {@link OutboundConfirm} for an envelope, or null when it asks nothing. `expires_at`: the
 * envelope's ISO `expires_at`, else now + `expires_in_s` seconds, else now + 5 minutes.
 */
export function confirmOf(env: Envelope, lang: Lang, now: Date): OutboundConfirm | null {
  const token = confirmTokenOf(env);
  if (token === null) return null;
  let expires: Date | null = null;
  if (typeof env.expires_at === 'string' && !Number.isNaN(Date.parse(env.expires_at))) expires = new Date(env.expires_at);
  else if (typeof env.expires_in_s === 'number' && Number.isFinite(env.expires_in_s) && env.expires_in_s > 0) {
    expires = new Date(now.getTime() + env.expires_in_s * 1000);
  }
  return {
    token,
    prompt_md: confirmPrompt(env),
    options: [
      { id: 'confirm', label: t(lang, 'confirm'), style: 'danger' },
      { id: 'cancel', label: t(lang, 'cancel'), style: 'secondary' },
    ],
    expires_at: (expires ?? new Date(now.getTime() + CONFIRM_TTL_MS)).toISOString(),
  };
}

/** The text-channel instruction: 「回复「确认」继续，回复「取消」放弃。」. */
export function confirmTextInstruction(lang: Lang): string {
  return t(lang, 'confirm_text_prompt');
}
