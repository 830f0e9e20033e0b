/**
 * The Discord adapter under the adapter contract kit: discord.js's REST client talks
 * to a loopback fake REST API (`rest.api`); golden cases in test/fixtures/adapters/discord (every
 * shared Discord fixture plus cases from the docs).
 *
 * Discord delivers messages over the gateway, not by webhook, so the kit drives the adapter
 * through a thin test wrapper: each delivery is verified by the adapter's real Ed25519
 * interactions verifier (verify.ts; this is what the kit's signature/replay checks exercise),
 * then a gateway dispatch frame goes to `processDispatch` — the function the gateway transport
 * calls — and an interaction body to the real interactions endpoint (`handleWebhook`). The
 * gateway itself is covered by gateway.test.ts.
 */
import { fileURLToPath } from 'node:url';
import { describeAdapterContract, type EventSpec } from '../../../adapters/contract/index.ts';
import { DiscordAdapter } from '../../../adapters/discord/index.ts';
import { verifyInteractionRequest, publicKeyFromHex } from '../../../adapters/discord/verify.ts';
import type { WebhookAdapter } from '../../../src/channel/types.ts';
import { createLogger } from '../../../src/log/logger.ts';
import { ENGINES, openTestDb } from '../../helpers/db.ts';
import {
  appKeys,
  BOT,
  customIds,
  DM_CHANNEL,
  installDiscord,
  messageBody,
  messageCreate,
  signInteraction,
  TOKEN,
  USER,
} from './fake-discord.ts';

const casesDir = fileURLToPath(new URL('../../fixtures/adapters/discord', import.meta.url));
const keys = appKeys();
const OTHER_BOT = { id: '754679440998531999', username: 'other-bot', global_name: null, bot: true };

function message(spec: EventSpec): Buffer | null {
  if (spec.address === 'command_suffix' || spec.address === 'other_bot_command') return null; // no /cmd@bot syntax on Discord
  const mention = spec.address === 'mention';
  const author = spec.sender === 'self' ? { ...BOT, bot: true } : spec.sender === 'other_bot' ? OTHER_BOT : USER;
  return Buffer.from(
    JSON.stringify(
      messageCreate({
        id: String(1500000000000000000n + BigInt(spec.seq)),
        content: mention ? `<@${BOT.id}> ${spec.text}` : spec.text,
        chat: spec.chat,
        author,
        mentions: mention ? [{ ...BOT, bot: true, global_name: null }] : [],
      }),
    ),
  );
}

/** A code fence left open at the end of a chunk (CommonMark: a closer is the same character, at least as long, nothing after). */
function fenceProblem(t: string): string | null {
  let open: string | null = null;
  for (const line of t.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!m) continue;
    if (open === null) {
      if (!(m[1]!.startsWith('`') && m[2]!.includes('`'))) open = m[1]!;
    } else if (m[1]![0] === open[0] && m[1]!.length >= open.length && m[2]!.trim() === '') open = null;
  }
  return open === null ? null : `code fence ${open} left open`;
}

/** The kit's view of the adapter: verified deliveries, dispatches to processDispatch (see the file doc). */
function kitAdapter(a: DiscordAdapter, now: () => Date): WebhookAdapter {
  const key = publicKeyFromHex(keys.publicHex);
  return {
    channel: a.channel,
    account: a.account,
    capabilities: a.capabilities,
    send: (t, m, o) => a.send(t, m, o),
    fetchAttachment: (att) => a.fetchAttachment(att),
    stop: () => a.stop(),
    async handleWebhook(req, host) {
      const v = verifyInteractionRequest(req, key, now());
      if (!v.ok) return v.response;
      if ((v.body as { op?: unknown }).op === undefined) return a.handleWebhook(req, host);
      await a.processDispatch(v.body, host);
      return { status: 200 };
    },
  };
}

describeAdapterContract({
  channel: 'discord',
  databases: ENGINES.map((e) => ({ name: e, open: () => openTestDb(e) })),
  casesDir,
  installPlatform: (fake) => installDiscord(fake),
  createAdapter: async (ctx) => {
    const now = () => ctx.clock.now();
    const a = new DiscordAdapter(
      {
        account: ctx.account,
        token: TOKEN,
        apiRoot: `${ctx.fake.baseUrl}/api`,
        messageContent: true,
        publicKey: keys.publicHex,
        maxRetryDelayMs: 2000,
      },
      { db: ctx.db, log: createLogger({ level: 'silent' }), now, botInfo: BOT },
    );
    return kitAdapter(a, now);
  },
  sign: (body, at) => ({ headers: signInteraction(keys.privateKey, body, at) }),
  replayWindowS: 300,
  generators: {
    message,
    buttonPress: ({ seq, data, chatId, actorId }) =>
      Buffer.from(
        JSON.stringify({
          type: 3,
          id: String(1600000000000000000n + BigInt(seq)),
          token: `itok-${seq}`,
          application_id: BOT.id,
          channel_id: chatId,
          user: { ...USER, id: actorId },
          data: { custom_id: data, component_type: 2 },
          message: { id: '1328998315458691089', author: { ...BOT, bot: true }, content: 'x' },
          locale: 'zh-CN',
        }),
      ),
    ignoredEvent: (seq) =>
      Buffer.from(
        JSON.stringify({ op: 0, t: 'TYPING_START', s: seq, d: { channel_id: DM_CHANNEL, user_id: USER.id, timestamp: 1767225600 } }),
      ),
  },
  outbound: {
    sendPath: /^\/api\/v10\/channels\/\d+\/messages$/,
    sentText: (r) => {
      const c = messageBody(r).content;
      return typeof c === 'string' ? c : null;
    },
    isFormatted: (r) => ((Number(messageBody(r).flags) || 0) & 4) === 0,
    buttonPayloads: customIds,
    uploadedFiles: (r) =>
      r.parts.filter((p) => p.filename !== null && /^files\[\d+\]$/.test(p.name)).map((p) => ({ filename: p.filename!, data: p.data })),
    maxLength: 2000,
    unit: 'utf16',
    buttonLimitBytes: 100,
    formattingRejected: { status: 400, json: { code: 50035, message: 'Invalid Form Body' } },
    rateLimited: (s) => ({
      status: 429,
      headers: { 'retry-after': String(s), 'x-ratelimit-scope': 'user' },
      json: { message: 'You are being rate limited.', retry_after: s, global: false },
    }),
    permanentFailure: { status: 404, json: { code: 10003, message: 'Unknown Channel' } },
    serverFailure: { status: 502, body: 'Bad Gateway' },
    wellFormed: fenceProblem,
    target: { channel: 'discord', account: 'default', chat_id: DM_CHANNEL, chat_type: 'direct' },
  },
  attachments: {
    serve(fake, file) {
      const path = `/attachments/${DM_CHANNEL}/1700000000000000001/${encodeURIComponent(file.filename)}`;
      fake.route('GET', /^\/attachments\/\d+\/1700000000000000001\/[^/]+$/, {
        headers: { 'content-type': file.mime_type },
        body: file.data,
      });
      const att = {
        type: 'file' as const,
        filename: file.filename,
        mime_type: file.mime_type,
        size: file.data.length,
        platform_ref: { attachment_id: '1700000000000000001', url: `${fake.baseUrl}${path}?ex=1&is=2&hm=3&` },
      };
      const msg = JSON.parse(message({ seq: 1, text: 'file', chat: 'direct', sender: 'user', address: 'none' })!.toString()) as never;
      return { att, msg };
    },
  },
});
