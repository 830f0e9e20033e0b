/**
 * Who may talk to a role (docs/configuration.md `access: open | directory | allowlist`).
 */
import type { RoleConfig } from '../config/file.ts';
import type { Lang, ResolvedActor } from './types.ts';

/** The outcome of {@link checkAccess}. */
export type AccessDecision = { allowed: true } | { allowed: false; message: string };

const REFUSALS: Record<'directory' | 'allowlist', Record<Lang, string>> = {
  directory: {
    'zh-CN': '抱歉，您不在本组织的通讯录中，暂时无法使用此助手。请联系管理员添加。',
    en: "Sorry, you are not in this organization's directory, so you cannot use this assistant yet. Please ask an administrator to add you.",
  },
  allowlist: {
    'zh-CN': '抱歉，您暂未获得使用此助手的权限。请联系管理员开通。',
    en: 'Sorry, you do not have access to this assistant yet. Please ask an administrator to grant it.',
  },
};

/**
 * Apply the role's access policy to a resolved sender:
 * - `open`: everyone;
 * - `directory`: known contacts only;
 * - `allowlist`: an `allow` entry equals the contact key (of a known contact) or
 *   `<channel>:<id>` for the primary `platformId` or any id the sender came with
 *   (`actor.platformIds`).
 * Any other policy value refuses (fail closed). The refusal is a polite sentence in `lang`
 * (default zh-CN) that reveals nothing about the directory.
 */
export function checkAccess(
  role: RoleConfig,
  actor: ResolvedActor,
  channel: string,
  platformId: string,
  lang: Lang = 'zh-CN',
): AccessDecision {
  const l: Lang = lang === 'en' ? 'en' : 'zh-CN';
  switch (role.access ?? 'open') {
    case 'open':
      return { allowed: true };
    case 'directory':
      return actor.known ? { allowed: true } : { allowed: false, message: REFUSALS.directory[l] };
    case 'allowlist': {
      const allow = new Set((role.allow ?? []).map((a) => String(a).trim()).filter((a) => a !== ''));
      const ids = [platformId, ...(actor.platformIds ?? [])].map((i) => String(i ?? '').trim()).filter((i) => i !== '');
      const ok = (actor.known && allow.has(actor.contactKey)) || ids.some((id) => allow.has(`${channel}:${id}`));
      return ok ? { allowed: true } : { allowed: false, message: REFUSALS.allowlist[l] };
    }
    default:
      return { allowed: false, message: REFUSALS.allowlist[l] };
  }
}
