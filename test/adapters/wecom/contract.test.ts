/**
 * The WeCom adapter through the contract kit: encrypted + signed callbacks
 * (WXBizMsgCrypt, the kit's signer encrypts each generated body into the XML envelope), the
 * adapter's API client against the kit's loopback fake speaking WeCom's wire format, the real
 * inbox on each database engine. Golden cases: test/fixtures/adapters/wecom/cases (every shared
 * WeCom fixture plus doc cases).
 */
import { join } from 'node:path';
import { createWecomAdapter } from '../../../adapters/wecom/index.ts';
import { toWecomXml } from '../../../adapters/wecom/wire.ts';
import { describeAdapterContract, type RecordedRequest } from '../../../adapters/contract/index.ts';
import { wecomAesKey, wecomEncrypt, wecomSignature } from '../../../adapters/wecom/crypto.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { ENGINES, openTestDb } from '../../helpers/db.ts';
import { WECOM, installWecomApi } from './fake-wecom.ts';

const CASES_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'adapters', 'wecom', 'cases');
const KEY = wecomAesKey(WECOM.aesKey);

/** The encrypted envelope WeCom POSTs for `inner`, with its signing query at `at`. */
export function envelope(inner: Buffer, at: Date, nonce = 'kitnonce1'): { body: Buffer; query: Record<string, string> } {
  const encrypt = wecomEncrypt(inner.toString('utf8'), WECOM.corpId, KEY);
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const body = Buffer.from(toWecomXml({ ToUserName: WECOM.corpId, AgentID: WECOM.agentId, Encrypt: encrypt }), 'utf8');
  return { body, query: { msg_signature: wecomSignature(WECOM.token, timestamp, nonce, encrypt), timestamp, nonce } };
}

interface SendBody {
  msgtype?: string;
  text?: { content?: string };
  template_card?: { button_list?: { key?: string }[] };
}

describeAdapterContract({
  channel: 'wecom',
  databases: ENGINES.map((e) => ({ name: e, open: () => openTestDb(e) })),
  casesDir: CASES_DIR,
  installPlatform: (fake) => void installWecomApi(fake),
  async createAdapter(ctx) {
    return createWecomAdapter({
      account: ctx.account,
      corpId: WECOM.corpId,
      agentId: WECOM.agentId,
      secret: WECOM.secret,
      token: WECOM.token,
      aesKey: WECOM.aesKey,
      apiRoot: ctx.fake.baseUrl,
      db: ctx.db,
      log: createLogger({ level: 'silent', pretty: false }),
      now: () => ctx.clock.now(),
    });
  },
  sign(body, at) {
    const e = envelope(body, at);
    return { headers: {}, query: e.query, body: e.body };
  },
  replayWindowS: 300,
  handshakes: [
    {
      name: 'GET URL verification: echostr decrypted, answered as plain text',
      request: (ctx) => {
        const echostr = wecomEncrypt('kit_echo_12345', WECOM.corpId, KEY);
        const timestamp = String(Math.floor(ctx.clock.now().getTime() / 1000));
        return {
          method: 'GET',
          headers: {},
          query: { msg_signature: wecomSignature(WECOM.token, timestamp, 'n1', echostr), timestamp, nonce: 'n1', echostr },
          body: Buffer.alloc(0),
        };
      },
      expect: { status: 200, body: 'kit_echo_12345' },
    },
  ],
  generators: {
    message(spec) {
      // Self-built app callbacks are one member ↔ the app: no groups, no bots, no mentions.
      if (spec.chat !== 'direct' || spec.sender !== 'user' || spec.address !== 'none') return null;
      return Buffer.from(
        toWecomXml({
          ToUserName: WECOM.corpId,
          FromUserName: 'test_user_001',
          CreateTime: 1767225600,
          MsgType: 'text',
          Content: spec.text,
          MsgId: 8_000_000_000_000_000_000n + BigInt(spec.seq),
          AgentID: 1000002,
        }),
      );
    },
    buttonPress({ seq, data, actorId }) {
      return Buffer.from(
        toWecomXml({
          ToUserName: WECOM.corpId,
          FromUserName: actorId,
          CreateTime: 1767225600 + seq,
          MsgType: 'event',
          Event: 'template_card_event',
          EventKey: data,
          TaskId: `kit_task_${seq}`,
          CardType: 'button_interaction',
          ResponseCode: `rc_${seq}`,
          AgentID: 1000002,
        }),
      );
    },
    ignoredEvent(seq) {
      return Buffer.from(
        toWecomXml({
          ToUserName: WECOM.corpId,
          FromUserName: 'test_user_001',
          CreateTime: 1767225600 + seq,
          MsgType: 'event',
          Event: 'enter_agent',
          EventKey: '',
          AgentID: 1000002,
        }),
      );
    },
  },
  outbound: {
    sendPath: /^\/cgi-bin\/message\/send$/,
    sentText: (req: RecordedRequest) => {
      const b = req.json as SendBody | undefined;
      return b?.msgtype === 'text' ? (b.text?.content ?? null) : null;
    },
    isFormatted: (req) => (req.json as SendBody | undefined)?.msgtype === 'markdown',
    buttonPayloads: (req) => ((req.json as SendBody | undefined)?.template_card?.button_list ?? []).map((b) => b.key ?? ''),
    uploadedFiles: (req) =>
      req.path === '/cgi-bin/media/upload'
        ? req.parts.filter((p) => p.name === 'media' && p.value === null).map((p) => ({ filename: p.filename ?? '', data: p.data }))
        : [],
    maxLength: 2048,
    unit: 'bytes',
    buttonLimitBytes: 1024,
    // WeCom text has no formatting to reject; the adapter never asks for any (see the report).
    // WeCom answers rate limits with HTTP 200 + errcode 45009 and no hint; the fake adds Retry-After, which the adapter honours.
    rateLimited: (s) => ({
      headers: { 'retry-after': String(s) },
      json: { errcode: 45009, errmsg: 'api freq out of limit, more info at https://open.work.weixin.qq.com/devtool/query?e=45009' },
    }),
    permanentFailure: { json: { errcode: 81013, errmsg: 'user & party & tag all invalid' } },
    serverFailure: { status: 502, body: 'bad gateway' },
    target: { channel: 'wecom', account: 'default', chat_id: 'test_user_001', chat_type: 'direct' },
  },
  attachments: {
    serve(fake, file) {
      const raw = Buffer.from(file.filename, 'utf8').toString('latin1');
      fake.route('GET', '/cgi-bin/media/get', (req) =>
        req.query.media_id === 'kit_media_att'
          ? { headers: { 'content-type': file.mime_type, 'content-disposition': `attachment; filename="${raw}"` }, body: file.data }
          : { json: { errcode: 40007, errmsg: 'invalid media_id' } },
      );
      const att = { type: 'file' as const, filename: file.filename, mime_type: null, platform_ref: { media_id: 'kit_media_att' } };
      return {
        att,
        msg: {
          channel: 'wecom',
          account: 'default',
          dedupe_key: 'wecom:msg:1',
          kind: 'message',
          message_id: '1',
          chat: { id: 'test_user_001', type: 'direct' },
          raw_input: '',
          attachments: [att],
          actor: { id: 'test_user_001', display_name: 'Test User' },
          mentioned_bot: false,
          addressed_to_bot: true,
          reply_to: null,
        },
      };
    },
  },
});
