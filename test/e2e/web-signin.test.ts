/**
 * A web chat sign-in link asked for over Telegram (docs/web-protocol.md "Sign-in links"), end
 * to end: a real gateway, a real Telegram webhook into the fake Bot API (test/e2e/rig.ts). The
 * contact sends `/web` (or 「网页登录」); the link arrives only in their own chat, signs that
 * contact in once — and only once. A sender outside the directory gets no link. Both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { telegramBody } from '../adapters/telegram/fake-telegram.ts';
import { ENGINES } from '../helpers/db.ts';
import { consumeSigninLink, issueSigninLink } from '../../src/web-auth/signin-links.ts';
import { startRig, telegramUpdate, until, type Rig } from './rig.ts';

const LI_SI_TG = 777;
const STRANGER_TG = 888;
const DIRECTORY = [{ contact_key: 'li_si', name: '李四', emp_no: 'E2001', team_role: 'member', telegram: String(LI_SI_TG) }];

for (const engine of ENGINES) {
  describe(`web sign-in link over Telegram [${engine}]`, () => {
    let rig: Rig;
    beforeAll(async () => {
      rig = await startRig(engine, DIRECTORY, { feishu: false });
    }, 120_000);
    afterAll(async () => {
      await rig?.close();
    });

    const sentTo = (chat: number) =>
      rig.telegram
        .calls('/bot:token/:method', 'POST')
        .filter((r) => r.params.method === 'sendMessage' && String(telegramBody(r).chat_id) === String(chat))
        .map((r) => String(telegramBody(r).text ?? ''));
    const linkIn = (texts: string[]): string[] => texts.flatMap((t) => [...t.matchAll(/#signin=(wl_[A-Za-z0-9_-]+)/g)].map((m) => m[1]!));
    const signin = (link: string) =>
      fetch(`${rig.gateway.url}/api/web/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ link }),
      });

    it('/web from a directory contact: the link comes only to their chat and signs li_si in once, and only once', async () => {
      expect(
        (await telegramUpdate(rig, LI_SI_TG, { text: '/web', entities: [{ type: 'bot_command', offset: 0, length: 4 }] })).status,
      ).toBe(200);
      await until(() => linkIn(sentTo(LI_SI_TG)).length > 0, 60_000, 'link sent');
      await until(() => sentTo(LI_SI_TG).some((t) => t.includes('单独发给你')), 60_000, 'confirmation');
      const [code] = linkIn(sentTo(LI_SI_TG));
      // Nowhere else: no other chat got a link.
      const others = rig.telegram.calls('/bot:token/:method', 'POST').filter((r) => String(telegramBody(r).chat_id) !== String(LI_SI_TG));
      expect(linkIn(others.map((r) => JSON.stringify(telegramBody(r))))).toEqual([]);

      const first = await signin(code!);
      expect(first.status).toBe(200);
      expect(((await first.json()) as { user: { contact_key: string } }).user.contact_key).toBe('li_si');
      const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
      const cfg = (await (await fetch(`${rig.gateway.url}/api/web/config`, { headers: { cookie } })).json()) as {
        me: { contact_key: string } | null;
      };
      expect(cfg.me?.contact_key).toBe('li_si');

      // Once only: the same link again, also at the same moment twice, is refused.
      const again = await Promise.all([signin(code!), signin(code!)]);
      expect(again.map((r) => r.status)).toEqual([401, 401]);
      expect(again.every((r) => r.headers.get('set-cookie') === null)).toBe(true);

      // Sign-out ends the session the link gave.
      expect((await fetch(`${rig.gateway.url}/api/web/signout`, { method: 'POST', headers: { cookie } })).status).toBe(200);
      const after = (await (await fetch(`${rig.gateway.url}/api/web/config`, { headers: { cookie } })).json()) as { me: unknown };
      expect(after.me).toBeNull();
    });

    it('「网页登录」 asks for one too; a sender outside the directory gets a refusal and no link', async () => {
      const before = linkIn(sentTo(LI_SI_TG)).length;
      expect((await telegramUpdate(rig, LI_SI_TG, { text: '网页登录' })).status).toBe(200);
      await until(() => linkIn(sentTo(LI_SI_TG)).length > before, 60_000, 'second link');
      expect(
        (await telegramUpdate(rig, STRANGER_TG, { text: '/web', entities: [{ type: 'bot_command', offset: 0, length: 4 }] })).status,
      ).toBe(200);
      await until(() => sentTo(STRANGER_TG).some((t) => t.includes('不在通讯录')), 60_000, 'refusal');
      expect(linkIn(sentTo(STRANGER_TG))).toEqual([]);
      const { rows } = await rig.gateway.db.query<{ contact_key: string; issued_via: string }>(
        `SELECT contact_key, issued_via FROM skillgate.web_signin_links ORDER BY created_at`,
      );
      expect(rows).toEqual([
        { contact_key: 'li_si', issued_via: 'chat:telegram' },
        { contact_key: 'li_si', issued_via: 'chat:telegram' },
      ]);
    });

    it('a link is refused after its 10 minutes, for another org, and when it is not a link (injected clock)', async () => {
      const t0 = Date.parse('2026-12-01T10:00:00Z');
      const db = rig.gateway.db;
      const a = await issueSigninLink(db, 'demo', 'li_si', { via: 'console', nowMs: t0, base: 'http://x' });
      expect(a.url).toBe(`http://x/#signin=${a.code}`);
      expect(await consumeSigninLink(db, 'demo', a.code, t0 + 10 * 60_000)).toBeNull();
      const b = await issueSigninLink(db, 'demo', 'li_si', { via: 'console', nowMs: t0, base: 'http://x' });
      expect(await consumeSigninLink(db, 'other', b.code, t0 + 1000)).toBeNull();
      expect(await consumeSigninLink(db, 'demo', 'wt_not_a_link', t0 + 1000)).toBeNull();
      expect(await consumeSigninLink(db, 'demo', b.code, t0 + 9 * 60_000)).toBe('li_si');
    });
  });
}
