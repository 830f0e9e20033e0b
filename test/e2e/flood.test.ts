/**
 * Per-sender flood control through the real gateway (src/inbox/flood.ts wired in
 * src/gateway.ts): with SKILLGATE_FLOOD_PER_MINUTE=2, a third message within the minute is
 * answered with one polite notice over the real Telegram webhook and fake Bot API, stored
 * `refused`, and never reaches a turn; its redelivery stays a duplicate. Both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { telegramBody } from '../adapters/telegram/fake-telegram.ts';
import { SECRET as TG_SECRET } from '../adapters/telegram/fake-telegram.ts';
import { ENGINES } from '../helpers/db.ts';
import { startRig, until, type Rig } from './rig.ts';

const ANN_TG = 5151;

for (const engine of ENGINES) {
  describe(`flood control through the gateway [${engine}]`, () => {
    let rig: Rig;
    beforeAll(async () => {
      rig = await startRig(engine, [{ contact_key: 'ann', name: 'Ann', emp_no: 'E1', team_role: 'member', telegram: String(ANN_TG) }], {
        feishu: false,
        env: { SKILLGATE_FLOOD_PER_MINUTE: '2' },
      });
    }, 120_000);
    afterAll(async () => {
      await rig?.close();
    });

    const post = (id: number) =>
      fetch(`${rig.gateway.url}/webhooks/telegram`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': TG_SECRET },
        body: JSON.stringify({
          update_id: id,
          message: {
            message_id: id,
            date: Math.floor(Date.now() / 1000),
            chat: { id: ANN_TG, type: 'private', first_name: 'A' },
            from: { id: ANN_TG, is_bot: false, first_name: 'A', language_code: 'zh-hans' },
            text: '/help',
            entities: [{ type: 'bot_command', offset: 0, length: 5 }],
          },
        }),
      });
    const toAnn = () =>
      rig.telegram
        .calls('/bot:token/:method', 'POST')
        .filter((r) => r.params.method === 'sendMessage' && String(telegramBody(r).chat_id) === String(ANN_TG))
        .map((r) => String(telegramBody(r).text ?? ''));

    it('the third message of the minute gets one notice, is stored refused and never runs; a redelivery is a duplicate', async () => {
      for (const id of [910001, 910002, 910003, 910004]) expect((await post(id)).status).toBe(200);
      expect((await post(910003)).status).toBe(200); // redelivery of a refused update
      await until(() => toAnn().filter((t) => t.includes('太频繁')).length === 1, 60_000, 'flood notice');
      const { rows } = await rig.gateway.db.query<{ dedupe_key: string; status: string }>(
        `SELECT dedupe_key, status FROM skillgate.inbox_events ORDER BY id`,
      );
      expect(rows.map((r) => r.status)).toEqual([
        expect.stringMatching(/received|processing|done/),
        expect.stringMatching(/received|processing|done/),
        'refused',
        'refused',
      ]);
      await until(
        async () =>
          (await rig.gateway.db.query(`SELECT 1 FROM skillgate.inbox_events WHERE status IN ('received','processing')`)).rows.length === 0,
        60_000,
        'turns done',
      );
      await until(
        async () =>
          (await rig.gateway.db.query(`SELECT 1 FROM skillgate.outbox_messages WHERE status IN ('queued','sending')`)).rows.length === 0,
        60_000,
        'replies sent',
      );
      const replies = toAnn().filter((t) => !t.includes('太频繁'));
      const notices = toAnn().filter((t) => t.includes('太频繁'));
      expect(notices).toHaveLength(1);
      // Two turns ran (two /help answers), none for the refused ones.
      const { rows: turns } = await rig.gateway.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM skillgate.outbox_messages WHERE origin->>'inbox_event_id' IS NOT NULL`,
      );
      expect(turns[0]!.n).toBe(replies.length);
      expect(replies.length).toBe(2);
    });
  });
}
