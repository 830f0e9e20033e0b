/**
 * A fake Telegram Bot API on the contract kit's loopback server, speaking the real wire format
 * (https://core.telegram.org/bots/api#making-requests): `POST /bot<token>/<method>` with JSON or
 * multipart bodies, answers `{ok, result}` / `{ok:false, error_code, description, parameters}`,
 * files at `GET /file/bot<token>/<file_path>`. It enforces what the real API rejects and the
 * adapter must avoid: empty or over-long text (4096 after entity parsing), captions over 1024,
 * callback_data over 64 bytes, HTML outside the documented tags or unbalanced
 * ("can't parse entities"), and a wrong token (401).
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { bodyObject, startFakePlatform, type FakePlatform, type FakeReply } from '../../../adapters/contract/index.ts';
import { migrate } from '../../../src/store/migrate.ts';
import type { Db } from '../../../src/store/db.ts';
import { htmlToText } from '../../../adapters/telegram/outbound.ts';

export const TOKEN = '10000099:TEST_token_do_not_use';
export const SECRET = 'tg_test_secret_token_do_not_use';
export const BOT = { id: 10000099, username: 'test_gateway_bot' };

const ALLOWED_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'a',
  'code',
  'pre',
  'blockquote',
  'tg-spoiler',
  'span',
  'tg-emoji',
]);

/** Telegram's HTML check: only documented tags, balanced, entities of the four names or numeric. Returns the problem or null. */
export function telegramHtmlProblem(html: string): string | null {
  const stack: string[] = [];
  for (const m of html.matchAll(/<(\/?)([A-Za-z][\w-]*)([^<>]*)>|<|&(?![A-Za-z]+;|#\d+;|#x[0-9a-fA-F]+;)|&([A-Za-z]+);/g)) {
    if (m[0] === '<') return `Unsupported start tag at byte offset ${m.index}`;
    if (m[0] === '&') continue; // Telegram tolerates a bare & not followed by an entity name
    if (m[4] !== undefined) {
      if (!['lt', 'gt', 'amp', 'quot'].includes(m[4])) return `Unsupported entity &${m[4]};`;
      continue;
    }
    const [, close, name] = m as unknown as [string, string, string];
    const tag = name.toLowerCase();
    if (!ALLOWED_TAGS.has(tag)) return `Unsupported start tag "${tag}"`;
    if (close) {
      if (stack.pop() !== tag) return `Can't find end tag corresponding to start tag "${tag}"`;
    } else stack.push(tag);
  }
  return stack.length ? `Can't find end tag corresponding to start tag "${stack.at(-1)}"` : null;
}

const body = bodyObject;

const bad = (description: string, code = 400): FakeReply => ({ status: code, json: { ok: false, error_code: code, description } });

/** The parsed body of a recorded Bot API request (JSON, or multipart fields with JSON values parsed). */
export const telegramBody = body;

/** Install the Bot API on `fake`. `files` maps file_id → {path, bytes} for getFile + download. */
export function installTelegram(fake: FakePlatform, files: Map<string, { file_path: string; data: Buffer }> = new Map()): void {
  let nextId = 5000;
  fake.route('GET', '/file/bot:token/*', (req) => {
    const f = [...files.values()].find((x) => x.file_path === req.params.rest);
    return f && req.params.token === TOKEN
      ? { body: f.data, headers: { 'content-type': 'application/octet-stream' } }
      : { status: 404, body: 'Not Found' };
  });
  fake.route('*', '/bot:token/:method', (req) => {
    if (req.params.token !== TOKEN) return bad('Unauthorized', 401);
    const b = body(req);
    const method = req.params.method!;
    const chat = { id: Number(b.chat_id ?? 0), type: 'private' };
    const ok = (result: unknown): FakeReply => ({ json: { ok: true, result } });
    switch (method) {
      case 'getMe':
        return ok({
          id: BOT.id,
          is_bot: true,
          first_name: 'Test Gateway Bot',
          username: BOT.username,
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        });
      case 'getFile': {
        const f = files.get(String(b.file_id));
        return f
          ? ok({ file_id: b.file_id, file_unique_id: 'u', file_size: f.data.length, file_path: f.file_path })
          : bad('Bad Request: invalid file_id');
      }
      case 'sendMessage':
      case 'sendPhoto':
      case 'sendDocument':
      case 'sendVideo':
      case 'sendAudio':
      case 'sendVoice': {
        const isText = method === 'sendMessage';
        const raw = String((isText ? b.text : b.caption) ?? '');
        if (b.parse_mode === 'HTML') {
          const p = telegramHtmlProblem(raw);
          if (p) return bad(`Bad Request: can't parse entities: ${p}`);
        }
        const visible = b.parse_mode === 'HTML' ? htmlToText(raw) : raw;
        if (isText && visible.trim() === '') return bad('Bad Request: message text is empty');
        if (isText && visible.length > 4096) return bad('Bad Request: message is too long');
        if (!isText && visible.length > 1024) return bad('Bad Request: message caption is too long');
        const markup = b.reply_markup as { inline_keyboard?: { callback_data?: string }[][] } | undefined;
        for (const btn of markup?.inline_keyboard?.flat() ?? []) {
          const n = Buffer.byteLength(btn.callback_data ?? '');
          if (n < 1 || n > 64) return bad('Bad Request: BUTTON_DATA_INVALID');
        }
        if (!isText && !req.parts.some((p) => p.filename !== null) && typeof b[method.slice(4).toLowerCase()] !== 'string') {
          return bad('Bad Request: there is no file in the request');
        }
        return ok({ message_id: nextId++, date: 1736928000, chat, text: isText ? visible : undefined });
      }
      default:
        return ok(true);
    }
  });
}

/**
 * A loopback fake Bot API for one suite over a migrated `db`: started before all tests, closed
 * after all; before each, `truncate` (a SQL statement, e.g. `TRUNCATE skillgate.outbox_messages`)
 * runs and the recorded requests and scripts are cleared. @returns the running fake (after beforeAll)
 */
export function useFakeTelegram(db: () => Db, truncate: string): () => FakePlatform {
  let fake: FakePlatform | undefined;
  beforeAll(async () => {
    await migrate(db());
    fake = await startFakePlatform();
    installTelegram(fake);
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(async () => {
    await db().query(truncate);
    fake?.reset();
  });
  return () => fake!;
}
