/**
 * Ask, don't guess on a text channel (docs/messaging.md "Questions with choices"): WeCom's
 * self-built app shows text, so a question's options arrive as a numbered list, and the person
 * answers with the number. A real gateway (test/e2e/rig.ts) with its WeCom channel on the
 * loopback fake (fake-wecom.ts: signed, encrypted callbacks in; message/send out): a worker with
 * two open tickets replies 「完成了，费用 500 元」, gets the list, both tickets stay 处理中, and
 * replying 「2」 completes exactly the second ticket of the list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakePlatform, type FakePlatform } from '../../../adapters/contract/index.ts';
import { toWecomXml } from '../../../adapters/wecom/wire.ts';
import { wecomAesKey, wecomEncrypt, wecomSignature } from '../../../adapters/wecom/crypto.ts';
import { startRig, tickets, until, type Rig } from '../../e2e/rig.ts';
import { ENGINES } from '../../helpers/db.ts';
import { WECOM, installWecomApi } from './fake-wecom.ts';

const KEY = wecomAesKey(WECOM.aesKey);
const REPORTER = 'user_zh_002';
const WORKER = 'test_user_001';
const DIRECTORY = [
  { contact_key: 'zhang_san', name: '张三', emp_no: 'E1001', team_role: 'owner', wecom: REPORTER },
  { contact_key: 'li_si', name: '李四', emp_no: 'E2001', team_role: 'member', wecom: WORKER },
];

for (const engine of ENGINES) {
  describe(`WeCom: a question's options as a numbered list, answered by number [${engine}]`, () => {
    let fake: FakePlatform;
    let rig: Rig;
    let seq = 0;

    /** POST a signed, encrypted text message from `from`. */
    async function say(from: string, text: string): Promise<void> {
      const n = ++seq;
      const inner = toWecomXml({
        ToUserName: WECOM.corpId,
        FromUserName: from,
        CreateTime: Math.floor(Date.now() / 1000),
        MsgType: 'text',
        Content: text,
        MsgId: 9_000_000_000_000_000_000n + BigInt(n),
        AgentID: Number(WECOM.agentId),
      });
      const encrypt = wecomEncrypt(inner, WECOM.corpId, KEY);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const nonce = `n${n}`;
      const qs = new URLSearchParams({ msg_signature: wecomSignature(WECOM.token, timestamp, nonce, encrypt), timestamp, nonce });
      const res = await fetch(`${rig.gateway.url}/webhooks/wecom?${qs}`, {
        method: 'POST',
        headers: { 'content-type': 'text/xml' },
        body: toWecomXml({ ToUserName: WECOM.corpId, AgentID: WECOM.agentId, Encrypt: encrypt }),
      });
      expect(res.status).toBe(200);
    }
    /** Texts the fake was asked to send to `to`. */
    const textsTo = (to: string): string[] =>
      fake
        .calls('/cgi-bin/message/send', 'POST')
        .map((r) => r.json as { touser?: string; text?: { content?: string } })
        .filter((b) => b.touser === to && typeof b.text?.content === 'string')
        .map((b) => b.text!.content!);

    beforeAll(async () => {
      fake = await startFakePlatform();
      installWecomApi(fake);
      const env = {
        WECOM_CORP_ID: WECOM.corpId,
        WECOM_AGENT_ID: WECOM.agentId,
        WECOM_SECRET: WECOM.secret,
        WECOM_TOKEN: WECOM.token,
        WECOM_AES_KEY: WECOM.aesKey,
        WECOM_API_ROOT: fake.baseUrl,
      };
      Object.assign(process.env, env);
      rig = await startRig(engine, DIRECTORY, { feishu: false, telegram: false, env });
    }, 120_000);
    afterAll(async () => {
      await rig?.close();
      await fake?.close();
      for (const k of ['WECOM_CORP_ID', 'WECOM_AGENT_ID', 'WECOM_SECRET', 'WECOM_TOKEN', 'WECOM_AES_KEY', 'WECOM_API_ROOT'])
        delete process.env[k];
    });

    it('R-MSG-09: 「完成了，费用 500 元」 with two open tickets → numbered list, nothing changed; 「2」 completes that ticket alone', async () => {
      await say(REPORTER, '/repair_ticket action=查询');
      await until(() => textsTo(REPORTER).some((t) => t.includes('还没有工单')), 60_000, 'tables created');
      await say(WORKER, '/repair_ticket action=值班设置');
      await until(() => textsTo(WORKER).some((t) => t.includes('现在值班')), 60_000, 'on duty');
      await say(REPORTER, '/repair_ticket action=报修 描述="3号泵漏水" 位置=泵房');
      await until(() => textsTo(WORKER).some((t) => t.includes('新工单 T-1')), 60_000, 'ticket 1');
      await say(REPORTER, '/repair_ticket action=报修 描述="5号阀门卡死" 位置=二楼');
      await until(() => textsTo(WORKER).some((t) => t.includes('新工单 T-2')), 60_000, 'ticket 2');

      await say(WORKER, '完成了，费用 500 元');
      await until(() => textsTo(WORKER).some((t) => t.includes('是哪一张')), 60_000, 'the question');
      const question = textsTo(WORKER).find((t) => t.includes('是哪一张'))!;
      expect(question).toMatch(/^1\. T-2 5号阀门卡死（二楼）$/m);
      expect(question).toMatch(/^2\. T-1 3号泵漏水（泵房）$/m);
      expect(question).toContain('回复序号');
      expect((await tickets(rig)).map((t) => [Number(t.id), t.状态, t.费用])).toEqual([
        [1, '处理中', null],
        [2, '处理中', null],
      ]);

      await say(WORKER, '2');
      await until(() => textsTo(WORKER).some((t) => t.includes('已记录')), 60_000, 'completion');
      expect(textsTo(WORKER).find((t) => t.includes('已记录'))).toContain('T-1');
      const rows = await tickets(rig);
      expect(rows.map((t) => [Number(t.id), t.状态])).toEqual([
        [1, '已完成'],
        [2, '处理中'],
      ]);
      expect(Number(rows[0]!.费用)).toBe(500);
      await until(() => textsTo(REPORTER).some((t) => t.includes('T-1 已维修完成')), 60_000, 'reporter told');
    }, 180_000);
  });
}
