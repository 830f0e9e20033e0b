/**
 * Secrets never leave (src/log/secret-values.ts; docs/operations-delivery.md "Secrets never
 * leave"), end to end on a real gateway with the fake Bot API (test/e2e/rig.ts): a skill
 * echoing its encrypted parameter, and a failed send whose platform error carries the bot
 * token inside a URL — neither value appears in what reaches the fake platform, in any log
 * line, in the outbox's stored error or in the audit log. `chat_key` is logged as itself.
 * Both engines.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSkillConfig } from '../../src/runtime/skill-config.ts';
import { telegramBody, TOKEN } from '../adapters/telegram/fake-telegram.ts';
import { ENGINES } from '../helpers/db.ts';
import { captureLog } from '../inbox/helpers.ts';
import { KEY, startRig, telegramUpdate, until, type Rig } from './rig.ts';

const SKILLS = fileURLToPath(new URL('../fixtures/secrets/', import.meta.url));
const SECRET = 'sk-live-7f3c9a2e44b1d0c8';
const ANN_TG = 4242;
const BOB_TG = 999; // every send to Bob fails with an error that quotes the request URL
const DIRECTORY = [
  { contact_key: 'ann', name: 'Ann', emp_no: 'E1', team_role: 'member', telegram: String(ANN_TG) },
  { contact_key: 'bob', name: 'Bob', emp_no: 'E2', team_role: 'member', telegram: String(BOB_TG) },
];

for (const engine of ENGINES) {
  describe(`secrets never leave [${engine}]`, () => {
    let rig: Rig;
    const { log, lines } = captureLog();
    beforeAll(async () => {
      rig = await startRig(engine, DIRECTORY, { feishu: false, env: { SKILLGATE_SKILL_DIRS: SKILLS, SKILLGATE_SECRET_KEY: KEY }, log });
      const saved = await setSkillConfig(rig.gateway.db, Buffer.from(KEY, 'base64'), {
        roleId: 'default',
        skill: 'echo_secret',
        key: 'api_key',
        value: SECRET,
        encrypt: true,
        via: 'operator',
        logger: log,
      });
      expect(saved.ok).toBe(true);
      rig.telegram.route('POST', '/bot:token/sendMessage', (req) => {
        const b = telegramBody(req);
        if (String(b.chat_id) === String(BOB_TG)) {
          return {
            status: 400,
            json: {
              ok: false,
              error_code: 400,
              description: `Bad Request: upstream refused https://api.telegram.org/bot${TOKEN}/sendMessage?chat_id=${BOB_TG}`,
            },
          };
        }
        return {
          json: {
            ok: true,
            result: { message_id: 1, date: 1736928000, chat: { id: Number(b.chat_id), type: 'private' }, text: String(b.text ?? '') },
          },
        };
      });
    }, 120_000);
    afterAll(async () => {
      await rig?.close();
    });

    const reached = () => JSON.stringify(rig.telegram.calls('/bot:token/:method', 'POST').map((r) => telegramBody(r)));

    it('a skill echoing its secret: the reply reaches Telegram with the value redacted; nowhere in logs, outbox or audit', async () => {
      expect(
        (await telegramUpdate(rig, ANN_TG, { text: '/echo_secret', entities: [{ type: 'bot_command', offset: 0, length: 12 }] })).status,
      ).toBe(200);
      await until(() => reached().includes('<b>key</b>: [redacted]'), 60_000, 'reply sent');
      expect(reached()).toContain('v1?key=%5Bredacted%5D'); // inside the link too
      expect(reached()).not.toContain(SECRET);
      expect(reached()).not.toContain(encodeURIComponent(SECRET));
      const audit = await rig.gateway.db.query('SELECT * FROM skillgate.audit_log');
      expect(audit.rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(audit.rows)).not.toContain(SECRET);
      const outbox = await rig.gateway.db.query('SELECT message, last_error FROM skillgate.outbox_messages');
      expect(JSON.stringify(outbox.rows)).not.toContain(SECRET);
      expect(JSON.stringify(lines())).not.toContain(SECRET);
    });

    it('a failed send whose error quotes a URL with the bot token: stored and logged without it; chat_key logged as itself', async () => {
      expect((await telegramUpdate(rig, BOB_TG, { text: '/help', entities: [{ type: 'bot_command', offset: 0, length: 5 }] })).status).toBe(
        200,
      );
      await until(
        async () =>
          (
            await rig.gateway.db.query(`SELECT 1 FROM skillgate.outbox_messages WHERE chat_key LIKE $1 AND status = 'failed'`, [
              `telegram:default:${BOB_TG}%`,
            ])
          ).rows.length > 0,
        60_000,
        'send failed',
      );
      const { rows } = await rig.gateway.db.query<{ last_error: string }>(
        `SELECT last_error FROM skillgate.outbox_messages WHERE status = 'failed'`,
      );
      expect(rows[0]!.last_error).toContain('https://api.telegram.org/bot[redacted]/sendMessage');
      const logged = JSON.stringify(lines());
      expect(logged).not.toContain(TOKEN);
      expect(logged).not.toContain(encodeURIComponent(TOKEN));
      expect(JSON.stringify((await rig.gateway.db.query('SELECT * FROM skillgate.audit_log')).rows)).not.toContain(TOKEN);
      // What reached the platform as message content never carries the token either.
      const texts = rig.telegram.calls('/bot:token/:method', 'POST').map((r) => JSON.stringify(telegramBody(r)));
      expect(texts.join('\n')).not.toContain(TOKEN);
      // Ordinary fields named like secrets are not hidden.
      expect(lines().some((l) => typeof l.chat_key === 'string' && (l.chat_key as string).startsWith('telegram:default:'))).toBe(true);
    });
  });
}
