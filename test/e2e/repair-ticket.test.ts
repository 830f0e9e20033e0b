/**
 * The README walkthrough end to end on real input: the repair-ticket flow across Feishu and
 * Telegram through real webhooks, a real database (PGlite, and the server with TEST_DATABASE_URL)
 * and real delivery calls to loopback fakes (test/e2e/rig.ts).
 *
 * The reporter (Feishu open_id, team owner) uses the skill first (the tables are created), the
 * worker (Telegram id 777, a member) puts himself on duty from Telegram, the reporter reports
 * pump 3 with a photo (a signed, encrypted Feishu `post` event: command text + image).
 * Ops get the alert (Apprise), the worker gets the ticket with the photo (Bot API sendPhoto),
 * the reporter the ticket number (Feishu reply). The worker answers 「完成了，费用 1200 元」
 * with a photo (a Telegram update; getFile + download from the fake) → the pending reply runs
 * repair_ticket: the ticket row is 已完成 / 1200 with the photo, the reporter gets a Feishu
 * message with the photo (image upload + message create to their open_id), ops 「维修完成」.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentOf } from '../adapters/feishu/open-api.ts';
import { telegramBody } from '../adapters/telegram/fake-telegram.ts';
import { ENGINES } from '../helpers/db.ts';
import { PNG, feishuMessage, startRig, telegramUpdate, tickets, until, type Rig } from './rig.ts';

const REPORTER = 'ou_test_user_000000000000000000001';
const WORKER_TG = 777;
const DIRECTORY = [
  { contact_key: 'zhang_san', name: '张三', emp_no: 'E1001', team_role: 'owner', feishu: REPORTER },
  { contact_key: 'li_si', name: '李四', emp_no: 'E2001', team_role: 'member', telegram: String(WORKER_TG) },
];

for (const engine of ENGINES) {
  describe(`repair ticket: Feishu reporter, Telegram worker, Apprise ops [${engine}]`, () => {
    let rig: Rig;
    beforeAll(async () => {
      rig = await startRig(engine, DIRECTORY);
    }, 120_000);
    afterAll(async () => {
      await rig?.close();
    });

    /** Feishu messages (create or reply) whose JSON content contains `text`. */
    const feishuSays = (text: string) =>
      rig.feishu
        .calls(/^\/open-apis\/im\/v1\/messages(\/[^/]+\/reply)?$/, 'POST')
        .filter((r) => JSON.stringify(contentOf(r)?.content ?? '').includes(text));
    /** Bot API messages to the worker (typing indicators are not messages). */
    const toWorker = () =>
      rig.telegram
        .calls('/bot:token/:method', 'POST')
        .filter((r) => /^send(?!ChatAction)/.test(r.params.method!) && String(telegramBody(r).chat_id) === String(WORKER_TG));

    it('R-ACT-05 R-MSG-01 R-MSG-02 R-MSG-07 R-MSG-09: report with photo → ops alert, worker ticket with photo, reporter ticket number; worker reply with photo → ticket 已完成 1200, reporter photo on Feishu, ops 维修完成', async () => {
      // The owner's first use creates the tables; the worker (a member) puts himself on duty from Telegram.
      expect((await feishuMessage(rig, REPORTER, { type: 'text', content: { text: '/repair_ticket action=查询' } })).status).toBe(200);
      await until(() => feishuSays('还没有工单').length > 0, 60_000, 'tables created');
      expect(
        (
          await telegramUpdate(rig, WORKER_TG, {
            text: '/repair_ticket action=值班设置',
            entities: [{ type: 'bot_command', offset: 0, length: 14 }],
          })
        ).status,
      ).toBe(200);
      await until(() => toWorker().some((s) => JSON.stringify(telegramBody(s)).includes('现在值班')), 60_000, 'duty ack');
      expect(JSON.stringify(telegramBody(toWorker().at(-1)!))).toContain('telegram:777');

      // The report: a post with the command line and an inline photo.
      const post = {
        title: '',
        content: [
          [{ tag: 'text', text: '/repair_ticket action=report 描述="3号泵漏水" 位置=泵房' }],
          [{ tag: 'img', image_key: 'img_v3_pump3' }],
        ],
      };
      expect((await feishuMessage(rig, REPORTER, { type: 'post', content: post })).status).toBe(200);
      await until(() => feishuSays('T-1').length > 0, 60_000, 'report ack');
      const ack = JSON.stringify(contentOf(feishuSays('T-1')[0]!)!.content);
      expect(ack).toContain('已提交报修');
      expect(ack).toContain('李四');
      // the photo was downloaded from Feishu's resource API
      expect(rig.feishu.calls('/open-apis/im/v1/messages/:id/resources/:key')).toHaveLength(1);

      // Ops alert with the photo.
      await until(() => rig.apprise.calls.length >= 1, 30_000, 'ops alert');
      const alert = rig.apprise.calls[0]!;
      expect(alert.fields.title).toBe('新报修 T-1');
      expect(alert.fields.body).toContain('3号泵漏水');
      expect(alert.files.map((f) => f.data.equals(PNG))).toEqual([true]);

      // The worker's ticket on Telegram, with the photo.
      const sends = toWorker();
      expect(sends.map((s) => s.params.method)).toContain('sendPhoto');
      expect(sends.map((s) => JSON.stringify(telegramBody(s))).join('\n')).toContain('T-1');
      const photoSend = sends.find((s) => s.params.method === 'sendPhoto')!;
      expect(photoSend.parts.some((p) => p.filename !== null && Buffer.compare(p.data, PNG) === 0)).toBe(true);

      let row = (await tickets(rig))[0]!;
      expect(row).toMatchObject({
        状态: '处理中',
        报修人: '张三',
        origin_channel: 'feishu',
        origin_openid: REPORTER,
        维修工: '李四',
        维修工联系方式: 'telegram:777',
      });
      expect(String(row.origin_session_id)).not.toBe('');

      // The worker's reply: caption + photo, downloaded through getFile.
      const done = Buffer.concat([PNG, Buffer.from('done')]);
      rig.tgFiles.set('ph_done_big', { file_path: 'photos/file_9.jpg', data: done });
      const before = toWorker().length;
      const res = await telegramUpdate(rig, WORKER_TG, {
        caption: '完成了，费用 1200 元',
        photo: [
          { file_id: 'ph_done_small', file_unique_id: 'us', width: 90, height: 90, file_size: 10 },
          { file_id: 'ph_done_big', file_unique_id: 'ub', width: 800, height: 800, file_size: done.length },
        ],
      });
      expect(res.status).toBe(200);
      await until(() => toWorker().length > before, 60_000, 'worker ack');
      expect(JSON.stringify(telegramBody(toWorker().at(-1)!))).toContain('已完成');

      // The ticket row.
      row = (await tickets(rig))[0]!;
      expect(row.状态).toBe('已完成');
      expect(Number(row.费用)).toBe(1200);
      expect(row.完成说明).toBe('完成了，费用 1200 元');
      expect(String(row.完成照片)).toMatch(/repair_ticket\/T-1\/完成照片/);
      expect(String(row.完成照片)).not.toMatch(/^\//); // no server path in the business table

      // The reporter hears back on Feishu, with the photo, addressed by open_id (from the ticket).
      await until(() => feishuSays('已维修完成').length > 0, 30_000, 'reporter message');
      const toReporter = rig.feishu.calls('/open-apis/im/v1/messages', 'POST');
      expect(
        toReporter.every((r) => r.query.receive_id_type === 'open_id' && (r.json as { receive_id?: string }).receive_id === REPORTER),
      ).toBe(true);
      expect(toReporter.map((r) => contentOf(r)!.msg_type)).toContain('image');
      const uploads = rig.feishu.calls('/open-apis/im/v1/images', 'POST');
      expect(uploads.some((u) => u.parts.some((p) => p.filename !== null && Buffer.compare(p.data, done) === 0))).toBe(true);
      expect(JSON.stringify(feishuSays('已维修完成').map((r) => contentOf(r)!.content))).toContain('1,200 元');

      // Ops: 维修完成, with the completion photo.
      await until(() => rig.apprise.calls.length >= 2, 30_000, 'ops done');
      expect(rig.apprise.calls[1]!.fields.title).toBe('维修完成');
      expect(rig.apprise.calls[1]!.fields.body).toContain('T-1');
      expect(rig.apprise.calls[1]!.files.map((f) => f.data.equals(done))).toEqual([true]);
    }, 180_000);

    it("R-ACT-05 no action → need_param with the action list and nothing written; 查询 lists the ticket; after completion the worker's next message is no reply to it", async () => {
      await feishuMessage(rig, REPORTER, { type: 'text', content: { text: '/repair_ticket 描述=漏水' } });
      await until(() => feishuSays('请指定操作 action').length > 0, 30_000, 'need action');
      const listAnswer = JSON.stringify(contentOf(feishuSays('请指定操作 action')[0]!)!.content);
      for (const a of ['报修', '查询', '派单', '完成回复', '登记费用', '值班设置']) expect(listAnswer).toContain(a);
      expect((await tickets(rig)).length).toBe(1); // nothing written

      await feishuMessage(rig, REPORTER, { type: 'text', content: { text: '/repair_ticket action=查询 状态=已完成' } });
      await until(() => feishuSays('| T-1 |').length > 0, 30_000, 'list');
      expect(JSON.stringify(contentOf(feishuSays('| T-1 |')[0]!)!.content)).toContain('3号泵漏水');

      // the record was consumed: a later plain message from the worker goes to the planner
      const n = rig.apprise.calls.length;
      const before = toWorker().length;
      await telegramUpdate(rig, WORKER_TG, { text: '费用 900 元' });
      await until(() => toWorker().length > before, 30_000, 'planner answer');
      expect(
        toWorker()
          .slice(before)
          .map((s) => JSON.stringify(telegramBody(s)))
          .join(''),
      ).not.toContain('T-1');
      expect(Number((await tickets(rig))[0]!.费用)).toBe(1200);
      expect(rig.apprise.calls.length).toBe(n);
    }, 120_000);
  });
}
