/**
 * The Feishu adapter through the contract kit: encrypted + signed webhook deliveries
 * (Encrypt Key and Verification Token configured), the real SDK client against the kit's
 * loopback fake speaking the Open API wire format, the real inbox on each database engine.
 * Golden cases: test/fixtures/adapters/feishu/cases (every shared Feishu fixture + doc cases).
 */
import { join } from 'node:path';
import { createFeishuAdapter } from '../../../adapters/feishu/index.ts';
import { CARD_TEXT_BUDGET } from '../../../adapters/feishu/outbound.ts';
import { encryptEvent, eventSignature } from '../../../adapters/feishu/verify.ts';
import { describeAdapterContract, type RecordedRequest } from '../../../adapters/contract/index.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { ENGINES, openTestDb } from '../../helpers/db.ts';
import { SECRETS } from './helpers.ts';
import { installOpenApi } from './open-api.ts';

const CASES_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'adapters', 'feishu', 'cases');
const BOT = SECRETS.bot_open_id;
const USER = 'ou_test_user_000000000000000000001';
const OTHER_BOT = 'ou_test_otherbot_0000000000000077';
const SEND_PATH = /^\/open-apis\/im\/v1\/messages(\/[^/]+\/reply)?$/;

function header(id: string, type: string): Record<string, string> {
  return {
    event_id: id,
    token: SECRETS.verification_token,
    create_time: '1767225600000',
    event_type: type,
    tenant_key: 'tenant_test_0001',
    app_id: SECRETS.app_id,
  };
}

/** The JSON of a card request's markdown (text of a delivering request). */
function sentText(req: RecordedRequest): string | null {
  const body = req.json as { msg_type?: string; content?: string } | undefined;
  if (!body || typeof body.content !== 'string') return null;
  const c = JSON.parse(body.content) as { text?: string; body?: { elements?: { tag?: string; content?: string }[] } };
  if (body.msg_type === 'text') return c.text ?? null;
  if (body.msg_type === 'interactive') {
    const md = (c.body?.elements ?? []).filter((e) => e.tag === 'markdown').map((e) => e.content ?? '');
    return md.length ? md.join('\n') : null;
  }
  return null;
}

function buttonPayloads(req: RecordedRequest): string[] {
  const body = req.json as { msg_type?: string; content?: string } | undefined;
  if (body?.msg_type !== 'interactive' || typeof body.content !== 'string') return [];
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.tag === 'button')
        for (const b of (o.behaviors as { type?: string; value?: unknown }[]) ?? [])
          if (b.type === 'callback') out.push(JSON.stringify(b.value));
      Object.values(o).forEach(walk);
    }
  };
  walk(JSON.parse(body.content));
  return out;
}

describeAdapterContract({
  channel: 'feishu',
  databases: ENGINES.map((e) => ({ name: e, open: () => openTestDb(e) })),
  casesDir: CASES_DIR,
  installPlatform: (fake) => void installOpenApi(fake),
  async createAdapter(ctx) {
    return createFeishuAdapter({
      account: ctx.account,
      appId: SECRETS.app_id,
      appSecret: 'kit-secret',
      encryptKey: SECRETS.encrypt_key,
      verificationToken: SECRETS.verification_token,
      domain: ctx.fake.baseUrl,
      mode: 'webhook',
      log: createLogger({ level: 'silent', pretty: false }),
      now: () => ctx.clock.now().getTime(),
    });
  },
  sign(body, at) {
    const encrypted = Buffer.from(JSON.stringify({ encrypt: encryptEvent(body.toString('utf8'), SECRETS.encrypt_key) }));
    const ts = String(Math.floor(at.getTime() / 1000));
    const nonce = 'kit-nonce-1';
    return {
      headers: {
        'X-Lark-Request-Timestamp': ts,
        'X-Lark-Request-Nonce': nonce,
        'X-Lark-Signature': eventSignature(ts, nonce, SECRETS.encrypt_key, encrypted),
      },
      body: encrypted,
    };
  },
  replayWindowS: 300,
  handshakes: [
    {
      name: 'encrypted URL verification (unsigned; proves the key by decrypting, token checked)',
      request: () => ({
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(
          JSON.stringify({
            encrypt: encryptEvent(
              JSON.stringify({ challenge: 'kit_challenge', token: SECRETS.verification_token, type: 'url_verification' }),
              SECRETS.encrypt_key,
            ),
          }),
        ),
      }),
      expect: { status: 200, body: { challenge: 'kit_challenge' } },
    },
  ],
  generators: {
    message(spec) {
      if (spec.address === 'command_suffix' || spec.address === 'other_bot_command') return null; // Feishu has no /cmd@bot syntax
      const mention = spec.address === 'mention';
      const sender = spec.sender === 'user' ? USER : spec.sender === 'self' ? BOT : OTHER_BOT;
      return Buffer.from(
        JSON.stringify({
          schema: '2.0',
          header: header(`kit_evt_${spec.seq}`, 'im.message.receive_v1'),
          event: {
            sender: {
              sender_id: { open_id: sender, union_id: `on_${sender}`, ...(spec.sender === 'user' ? { user_id: 'test_user_001' } : {}) },
              sender_type: spec.sender === 'user' ? 'user' : 'app',
              tenant_key: 'tenant_test_0001',
            },
            message: {
              message_id: `om_kit_in_${spec.seq}`,
              create_time: '1767225600000',
              chat_id: spec.chat === 'direct' ? 'oc_kit_p2p_0001' : 'oc_kit_group_0001',
              chat_type: spec.chat === 'direct' ? 'p2p' : 'group',
              message_type: 'text',
              content: JSON.stringify({ text: mention ? `@_user_1 ${spec.text}` : spec.text }),
              ...(mention
                ? {
                    mentions: [
                      {
                        key: '@_user_1',
                        id: { open_id: BOT, union_id: 'on_bot', user_id: '' },
                        name: 'Test Gateway Bot',
                        tenant_key: 'tenant_test_0001',
                      },
                    ],
                  }
                : {}),
            },
          },
        }),
      );
    },
    buttonPress({ seq, data, chatId, actorId }) {
      let value: unknown = data;
      try {
        value = JSON.parse(data);
      } catch {
        /* a non-JSON payload stays a string */
      }
      return Buffer.from(
        JSON.stringify({
          schema: '2.0',
          header: header(`kit_card_${seq}`, 'card.action.trigger'),
          event: {
            operator: { open_id: actorId, tenant_key: 'tenant_test_0001' },
            token: 'c-kit',
            action: { value, tag: 'button' },
            host: 'im_message',
            context: { open_message_id: 'om_kit_card', open_chat_id: chatId },
          },
        }),
      );
    },
    ignoredEvent(seq) {
      return Buffer.from(
        JSON.stringify({
          schema: '2.0',
          header: header(`kit_other_${seq}`, 'im.chat.member.bot.added_v1'),
          event: { chat_id: 'oc_kit_group_0001' },
        }),
      );
    },
  },
  outbound: {
    sendPath: SEND_PATH,
    sentText,
    isFormatted: (req) => (req.json as { msg_type?: string } | undefined)?.msg_type === 'interactive',
    buttonPayloads,
    uploadedFiles(req) {
      if (req.path === '/open-apis/im/v1/files') {
        const part = req.parts.find((p) => p.name === 'file' && p.value === null);
        return part ? [{ filename: req.fields.file_name ?? '', data: part.data }] : [];
      }
      return [];
    },
    maxLength: CARD_TEXT_BUDGET,
    unit: 'bytes',
    // Card callback values are small JSON objects; no byte limit is documented, 1 KB is our own bound.
    buttonLimitBytes: 1024,
    formattingRejected: {
      status: 400,
      json: {
        code: 230099,
        msg: 'Failed to create card content, ext=ErrCode: 11310; ErrMsg: card table number over limit; ErrorValue: table; ',
      },
    },
    rateLimited: (s) => ({
      status: 429,
      headers: { 'x-ogw-ratelimit-limit': '50', 'x-ogw-ratelimit-reset': String(s) },
      json: { code: 99991400, msg: 'request trigger frequency limit' },
    }),
    permanentFailure: { status: 400, json: { code: 230002, msg: 'The bot can not be outside the group.' } },
    serverFailure: { status: 500, json: { code: 1500, msg: 'internal error' } },
    wellFormed(text) {
      // CommonMark fences: an opening line of ≥3 backticks (no backtick in the info string), closed by a line of at least as many.
      let open: number | null = null;
      for (const line of text.split('\n')) {
        const m = /^ {0,3}(`{3,})([^`]*)$/.exec(line);
        if (!m) continue;
        if (open === null) open = m[1]!.length;
        else if (m[2]!.trim() === '' && m[1]!.length >= open) open = null;
      }
      return open === null ? null : 'unclosed code fence';
    },
    target: { channel: 'feishu', account: 'default', chat_id: 'oc_test_p2p_000000000000000000001', chat_type: 'direct' },
  },
  attachments: {
    serve(fake, file) {
      const latin1 = Buffer.from(file.filename, 'utf8').toString('latin1');
      fake.route('GET', '/open-apis/im/v1/messages/om_kit_att/resources/file_kit_att', {
        headers: {
          'content-type': file.mime_type,
          'content-disposition': `attachment; filename="${latin1}"; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
        },
        body: file.data,
      });
      const att = {
        type: 'file' as const,
        filename: file.filename,
        mime_type: null,
        platform_ref: { message_id: 'om_kit_att', file_key: 'file_kit_att', resource_type: 'file' },
      };
      return {
        att,
        msg: {
          channel: 'feishu',
          account: 'default',
          dedupe_key: 'feishu:event:kit_att',
          kind: 'message',
          message_id: 'om_kit_att',
          chat: { id: 'oc_kit_p2p_0001', type: 'direct' },
          raw_input: '',
          attachments: [att],
          actor: { id: USER, display_name: 'Test User' },
          mentioned_bot: false,
          addressed_to_bot: true,
          reply_to: null,
        },
      };
    },
  },
});
