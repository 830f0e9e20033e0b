/**
 * The DingTalk adapter through the contract kit: signed robot callbacks
 * (`timestamp` + `sign`, 300 s window on the kit's clock), the adapter's own HTTP client against
 * the kit's loopback fake speaking DingTalk's wire format (both API roots on the fake), the real
 * inbox on each database engine. Golden cases: test/fixtures/adapters/dingtalk/cases (every
 * shared DingTalk fixture, verified with the fixture's own signature headers, plus doc cases).
 */
import { join } from 'node:path';
import { describeAdapterContract, type RecordedRequest } from '../../../adapters/contract/index.ts';
import { createDingtalkAdapter } from '../../../adapters/dingtalk/index.ts';
import { BUTTON_PAYLOAD_LIMIT, DINGTALK_TEXT_LIMIT } from '../../../adapters/dingtalk/outbound.ts';
import { callbackSign } from '../../../adapters/dingtalk/verify.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { ENGINES, openTestDb } from '../../helpers/db.ts';
import {
  APP_KEY,
  FIXTURES,
  SECRETS,
  SEND_PATH,
  distinctMs,
  installDingtalk,
  isMarkdown,
  sentText,
  serveDownload,
} from './fake-dingtalk.ts';

const BOT = SECRETS.chatbot_user_id;
const START = Date.parse('2026-01-01T00:00:00Z');

/** A robot callback body for the kit's generators. */
function callback(p: {
  seq: number;
  chat: 'direct' | 'group';
  senderId: string;
  staffId?: string;
  content: Record<string, unknown>;
  isInAtList?: boolean;
}): Buffer {
  const group = p.chat === 'group';
  return Buffer.from(
    JSON.stringify({
      conversationId: group ? 'cidKit+group+0001=' : `cidKit+p2p+${p.staffId ?? 'x'}=`,
      ...(group
        ? { atUsers: p.isInAtList ? [{ dingtalkId: BOT }] : [], conversationTitle: '契约测试群', isInAtList: p.isInAtList === true }
        : {}),
      chatbotCorpId: 'dingtest00000000000001',
      chatbotUserId: BOT,
      msgId: `msgKit${p.seq}==`,
      senderNick: 'Kit User',
      isAdmin: false,
      ...(p.staffId ? { senderStaffId: p.staffId } : {}),
      sessionWebhookExpiredTime: START + 90 * 60_000,
      createAt: START,
      senderCorpId: 'dingtest00000000000001',
      conversationType: group ? '2' : '1',
      senderId: p.senderId,
      sessionWebhook: `https://oapi.dingtalk.com/robot/sendBySession?session=kit_${p.seq}`,
      robotCode: SECRETS.robot_code,
      ...p.content,
    }),
  );
}

function buttonPayloads(req: RecordedRequest): string[] {
  const text = sentText(req) ?? '';
  return [...text.matchAll(/\(dtmd:\/\/dingtalkclient\/sendMessage\?content=([^)\s]+)\)/g)].map((m) => decodeURIComponent(m[1]!));
}

describeAdapterContract({
  channel: 'dingtalk',
  databases: ENGINES.map((e) => ({ name: e, open: () => openTestDb(e) })),
  casesDir: join(FIXTURES, 'cases'),
  installPlatform: (fake) => void installDingtalk(fake),
  async createAdapter(ctx) {
    return createDingtalkAdapter({
      account: ctx.account,
      appKey: APP_KEY,
      appSecret: SECRETS.app_secret,
      robotCode: SECRETS.robot_code,
      apiRoot: ctx.fake.baseUrl,
      oapiRoot: ctx.fake.baseUrl,
      db: ctx.db,
      log: createLogger({ level: 'silent', pretty: false }),
      now: () => ctx.clock.now().getTime(),
    });
  },
  sign(_body, at) {
    const ts = String(distinctMs(at.getTime()));
    return { headers: { timestamp: ts, sign: callbackSign(ts, SECRETS.app_secret) } };
  },
  replayWindowS: 300,
  generators: {
    message(spec) {
      // DingTalk has no `/cmd@bot` syntax, and other robots' messages are never delivered to a robot.
      if (spec.address === 'command_suffix' || spec.address === 'other_bot_command' || spec.sender === 'other_bot') return null;
      const mention = spec.address === 'mention';
      const self = spec.sender === 'self';
      return callback({
        seq: spec.seq,
        chat: spec.chat,
        senderId: self ? BOT : `$:LWCP_v1:$KitUser${spec.seq}`,
        staffId: self ? undefined : 'kit_staff_001',
        isInAtList: mention,
        // DingTalk cuts the @robot segment out of the content, leaving the space after it.
        content: { msgtype: 'text', text: { content: mention ? ` ${spec.text}` : spec.text } },
      });
    },
    buttonPress({ seq, data, actorId }) {
      return callback({
        seq,
        chat: 'direct',
        senderId: `$:LWCP_v1:$KitUser${seq}`,
        staffId: actorId,
        content: { msgtype: 'text', text: { content: data } },
      });
    },
    ignoredEvent(seq) {
      // A forwarded chat record: a real message type the gateway does not handle.
      return callback({
        seq,
        chat: 'direct',
        senderId: `$:LWCP_v1:$KitUser${seq}`,
        staffId: 'kit_staff_001',
        content: { msgtype: 'chatRecord', content: { chatRecord: '[]' } },
      });
    },
  },
  outbound: {
    sendPath: SEND_PATH,
    sentText,
    isFormatted: isMarkdown,
    buttonPayloads,
    uploadedFiles(req) {
      if (req.path !== '/media/upload') return [];
      return req.parts.filter((p) => p.name === 'media' && p.filename !== null).map((p) => ({ filename: p.filename!, data: p.data }));
    },
    maxLength: DINGTALK_TEXT_LIMIT,
    unit: 'chars',
    buttonLimitBytes: BUTTON_PAYLOAD_LIMIT,
    // No documented "markdown rejected" error exists; a 400 InvalidParameter on the msgParam is what a refused body gets (assumed).
    formattingRejected: { status: 400, json: { code: 'InvalidParameter.MsgParam', requestid: 'req-kit', message: 'msgParam 格式错误' } },
    rateLimited: (s) => ({
      status: 403,
      headers: { 'retry-after': String(s) },
      json: { code: 'Forbidden.AccessDenied.QpsLimitForAppkeyAndApi', requestid: 'req-kit', message: '调用频率超过限制' },
    }),
    permanentFailure: { status: 400, json: { code: 'InvalidParameter.userIds', requestid: 'req-kit', message: 'userIds 无效' } },
    serverFailure: { status: 500, json: { code: 'ServiceUnavailable', requestid: 'req-kit', message: '服务暂不可用' } },
    wellFormed(text) {
      let open: number | null = null;
      for (const line of text.split('\n')) {
        const m = /^ {0,3}(`{3,})([^`]*)$/.exec(line);
        if (!m) continue;
        if (open === null) open = m[1]!.length;
        else if (m[2]!.trim() === '' && m[1]!.length >= open) open = null;
      }
      return open === null ? null : 'unclosed code fence';
    },
    target: { channel: 'dingtalk', account: 'default', chat_id: 'test_staff_001', chat_type: 'direct' },
  },
  attachments: {
    serve(fake, file) {
      serveDownload(fake, 'kit_att_code', file);
      const att = { type: 'file' as const, filename: file.filename, mime_type: null, platform_ref: { download_code: 'kit_att_code' } };
      return {
        att,
        msg: {
          channel: 'dingtalk',
          account: 'default',
          dedupe_key: 'dingtalk:msg:kit_att',
          kind: 'message',
          message_id: 'kit_att',
          chat: { id: 'cidKit+p2p+kit=', type: 'direct' },
          raw_input: '',
          attachments: [att],
          actor: { id: 'kit_staff_001', display_name: 'Kit User' },
          mentioned_bot: false,
          addressed_to_bot: true,
          reply_to: null,
        },
      };
    },
  },
});
