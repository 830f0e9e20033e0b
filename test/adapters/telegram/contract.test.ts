/**
 * The Telegram adapter under the adapter contract kit: grammY talks to a loopback
 * fake Bot API; golden cases in test/fixtures/adapters/telegram (every shared Telegram fixture
 * plus cases from the Bot API docs).
 */
import { fileURLToPath } from 'node:url';
import { describeAdapterContract, type EventSpec, type RecordedRequest } from '../../../adapters/contract/index.ts';
import { TelegramAdapter } from '../../../adapters/telegram/index.ts';
import type { InboundMessage } from '../../../src/channel/types.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { ENGINES, openTestDb } from '../../helpers/db.ts';
import { BOT, SECRET, TOKEN, installTelegram, telegramBody, telegramHtmlProblem } from './fake-telegram.ts';

const casesDir = fileURLToPath(new URL('../../fixtures/adapters/telegram', import.meta.url));
const files = new Map<string, { file_path: string; data: Buffer }>();

const USER = { id: 10000001, is_bot: false, first_name: 'Test', last_name: 'User', username: 'test_user', language_code: 'zh-hans' };
const OTHER_BOT = { id: 10000098, is_bot: true, first_name: 'Other', username: 'other_bot' };
const SELF = { id: BOT.id, is_bot: true, first_name: 'Test Gateway Bot', username: BOT.username };
const GROUP = { id: -1001000000001, title: 'Test Ops Group', type: 'supergroup' };
const PRIVATE = { id: 10000001, first_name: 'Test', last_name: 'User', type: 'private' };

function message(spec: EventSpec): Buffer | null {
  let text = spec.text;
  const entities: { type: string; offset: number; length: number }[] = [];
  if (spec.address === 'mention') {
    text = `@${BOT.username} ${text}`;
    entities.push({ type: 'mention', offset: 0, length: BOT.username.length + 1 });
  } else if (spec.address === 'command_suffix' || spec.address === 'other_bot_command') {
    if (!text.startsWith('/')) return null;
    const cmd = text.split(' ')[0]!;
    const suffixed = `${cmd}@${spec.address === 'command_suffix' ? BOT.username : OTHER_BOT.username}`;
    text = suffixed + text.slice(cmd.length);
    entities.push({ type: 'bot_command', offset: 0, length: suffixed.length });
  }
  const from = spec.sender === 'self' ? SELF : spec.sender === 'other_bot' ? OTHER_BOT : USER;
  const chat = spec.chat === 'group' ? GROUP : PRIVATE;
  return Buffer.from(
    JSON.stringify({
      update_id: 600_000_000 + spec.seq,
      message: { message_id: spec.seq, from, chat, date: 1736928000, text, ...(entities.length ? { entities } : {}) },
    }),
  );
}

const replyMarkup = (r: RecordedRequest) =>
  telegramBody(r).reply_markup as { inline_keyboard?: { callback_data?: string }[][] } | undefined;

describeAdapterContract({
  channel: 'telegram',
  databases: ENGINES.map((e) => ({ name: e, open: () => openTestDb(e) })),
  casesDir,
  installPlatform: (fake) => installTelegram(fake, files),
  createAdapter: async (ctx) =>
    new TelegramAdapter(
      { account: ctx.account, token: TOKEN, webhookSecret: SECRET, mode: 'webhook', apiRoot: ctx.fake.baseUrl, maxRetryDelayS: 2 },
      { db: ctx.db, log: createLogger({ level: 'silent' }), now: () => ctx.clock.now() },
    ),
  sign: () => ({ headers: { 'X-Telegram-Bot-Api-Secret-Token': SECRET } }),
  generators: {
    message,
    buttonPress: ({ seq, data, chatId, actorId }) =>
      Buffer.from(
        JSON.stringify({
          update_id: 600_000_000 + seq,
          callback_query: {
            id: `cq${seq}`,
            from: { ...USER, id: Number(actorId) },
            message: { message_id: 9, from: SELF, chat: { ...PRIVATE, id: Number(chatId) }, date: 1736928000, text: 'x' },
            chat_instance: '-7000000000000000001',
            data,
          },
        }),
      ),
    ignoredEvent: (seq) =>
      Buffer.from(
        JSON.stringify({
          update_id: 600_000_000 + seq,
          poll: {
            id: 'p1',
            question: 'q',
            options: [],
            total_voter_count: 0,
            is_closed: false,
            is_anonymous: true,
            type: 'regular',
            allows_multiple_answers: false,
          },
        }),
      ),
  },
  outbound: {
    sendPath: /\/bot[^/]+\/send(Message|Photo|Document|Video|Audio|Voice)$/,
    sentText: (r) => {
      const b = telegramBody(r);
      const t = b.text ?? b.caption;
      return typeof t === 'string' ? t : null;
    },
    isFormatted: (r) => telegramBody(r).parse_mode !== undefined,
    buttonPayloads: (r) => (replyMarkup(r)?.inline_keyboard?.flat() ?? []).map((b) => b.callback_data ?? ''),
    uploadedFiles: (r) => r.parts.filter((p) => p.filename !== null).map((p) => ({ filename: p.filename!, data: p.data })),
    maxLength: 4096,
    unit: 'utf16',
    buttonLimitBytes: 64,
    formattingRejected: {
      status: 400,
      json: { ok: false, error_code: 400, description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 0' },
    },
    rateLimited: (s) => ({
      status: 429,
      json: { ok: false, error_code: 429, description: `Too Many Requests: retry after ${s}`, parameters: { retry_after: s } },
    }),
    permanentFailure: { status: 403, json: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' } },
    serverFailure: { status: 502, json: { ok: false, error_code: 502, description: 'Bad Gateway' } },
    wellFormed: telegramHtmlProblem,
    target: { channel: 'telegram', account: 'default', chat_id: '10000001', chat_type: 'direct' },
  },
  attachments: {
    serve: (_fake, f) => {
      const id = `BQACAgTEST-${files.size}`;
      files.set(id, { file_path: `documents/file_${files.size}.pdf`, data: f.data });
      const att = {
        type: 'file' as const,
        filename: f.filename,
        mime_type: f.mime_type,
        size: f.data.length,
        platform_ref: { file_id: id, file_unique_id: `u${id}` },
      };
      const msg: InboundMessage = {
        channel: 'telegram',
        account: 'default',
        dedupe_key: `telegram:update:${id}`,
        kind: 'message',
        message_id: '1',
        chat: { id: '10000001', type: 'direct' },
        raw_input: '',
        attachments: [att],
        actor: { id: '10000001', display_name: 'Test User' },
        mentioned_bot: false,
        addressed_to_bot: true,
        reply_to: null,
      };
      return { att, msg };
    },
  },
});
