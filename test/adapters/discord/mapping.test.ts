/**
 * The plain mapping functions of the Discord adapter against the shared fixtures
 * (test/fixtures/adapters/discord), the intent report, settings, and the Discord markdown dialect.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { matchSubset } from '../../../adapters/contract/index.ts';
import { discordSettings } from '../../../adapters/discord/index.ts';
import { normalizeDispatch, resolveMentions } from '../../../adapters/discord/inbound.ts';
import { textChunks } from '../../../adapters/discord/outbound.ts';
import { intentReport, loginFailureText } from '../../../adapters/discord/transport-gateway.ts';
import { intentsFor } from '../../../adapters/discord/wire.ts';
import { GatewayIntentBits } from 'discord.js';
import { renderDiscordMarkdown } from '../../../adapters/discord/render.ts';
import { BOT } from './fake-discord.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../fixtures/adapters/discord/${name}.json`, import.meta.url), 'utf8'));
const NOW = new Date('2026-01-01T00:00:00Z');

describe('discord mapping: gateway dispatch JSON → channel contract (shared fixtures)', () => {
  for (const name of ['dm_text', 'guild_mention_bot', 'attachments_image_pdf', 'interaction_button_confirm']) {
    it(`discord/${name}.json maps to expected.json`, () => {
      const c = JSON.parse(readFileSync(new URL(`../../fixtures/adapters/discord/${name}.inbound.json`, import.meta.url), 'utf8')) as {
        expected: { message: Record<string, unknown> };
      };
      const n = normalizeDispatch(fixture(name), 'default', BOT, NOW);
      const msg = n.type === 'message' ? n.msg : n.type === 'callback' ? n.build(n.customId) : null;
      expect(matchSubset(msg, c.expected.message, 'message')).toEqual([]);
    });
  }

  it('an expired button payload builds no message (the adapter answers with a notice)', () => {
    const n = normalizeDispatch(fixture('interaction_button_confirm'), 'default', BOT, NOW);
    expect(n.type).toBe('callback');
    if (n.type === 'callback') expect(n.build(null)).toBeNull();
  });

  it('mentions resolve to @name; the bot mention (both forms) is removed', () => {
    const mentions = [
      { id: BOT.id, username: BOT.username, global_name: null },
      { id: '42', username: 'bob', global_name: 'Bob B' },
    ];
    const r = resolveMentions(`<@!${BOT.id}> ask <@42> about <@99>`, mentions, BOT.id);
    expect(r).toEqual({ display: `@${BOT.username} ask @Bob B about <@99>`, withoutBot: 'ask @Bob B about <@99>', mentioned: true });
  });

  it('a reply to the bot in a guild is addressed to it; our own and other bots’ messages are ignored', () => {
    const base = fixture('guild_mention_bot') as { d: Record<string, unknown> };
    const reply = {
      ...base,
      d: {
        ...base.d,
        content: 'and pump-4?',
        mentions: [],
        message_reference: { message_id: '77' },
        referenced_message: { author: { id: BOT.id, username: BOT.username, bot: true } },
      },
    };
    const n = normalizeDispatch(reply, 'default', BOT, NOW);
    expect(n.type === 'message' && n.msg.addressed_to_bot && n.msg.reply_to).toEqual({ message_id: '77', author_is_bot: true });
    expect(
      normalizeDispatch({ ...base, d: { ...base.d, author: { id: BOT.id, username: 'x', bot: true } } }, 'default', BOT, NOW).type,
    ).toBe('ignore');
    expect(normalizeDispatch({ ...base, d: { ...base.d, author: { id: '5', username: 'y', bot: true } } }, 'default', BOT, NOW).type).toBe(
      'ignore',
    );
  });

  it('malformed dispatches are ignored, never thrown', () => {
    for (const f of [
      null,
      1,
      'x',
      {},
      { op: 0 },
      { op: 0, t: 'MESSAGE_CREATE' },
      { op: 0, t: 'MESSAGE_CREATE', d: { id: 5 } },
      { op: 0, t: 'INTERACTION_CREATE', d: { id: '1', token: 't', type: 3, data: {} } },
    ]) {
      expect(normalizeDispatch(f, 'default', BOT, NOW).type).toBe('ignore');
    }
  });
});

describe('discord intents and settings', () => {
  it('intents are Guilds, GuildMessages, DirectMessages (+ MessageContent unless mention-only)', () => {
    expect(intentsFor(true).sort()).toEqual(
      [
        GatewayIntentBits.Guilds,
        GatewayIntentBits.GuildMessages,
        GatewayIntentBits.DirectMessages,
        GatewayIntentBits.MessageContent,
      ].sort(),
    );
    expect(intentsFor(false)).not.toContain(GatewayIntentBits.MessageContent);
  });

  it('the start-up report states a missing MessageContent intent and mention-only mode', () => {
    expect(intentReport(true, 0).level).toBe('warn');
    expect(intentReport(true, 0).text).toContain('Privileged Gateway Intents');
    expect(intentReport(true, 1 << 18).level).toBe('info');
    expect(intentReport(true, 1 << 19).level).toBe('info');
    expect(intentReport(false, 0).text).toContain('mention-only');
    expect(loginFailureText(Object.assign(new Error('Used disallowed intents'), { code: 4014 }))).toContain('DISCORD_MESSAGE_CONTENT=off');
  });

  it('settings from the .env block; missing token and bad values name the key', () => {
    const s = discordSettings({
      channel: 'discord',
      id: 'default',
      role: 'r',
      source: 'env',
      values: { bot_token: 't', api_root: 'http://x/api/', message_content: 'off' },
    });
    expect(s).toMatchObject({ token: 't', apiRoot: 'http://x/api', messageContent: false, publicKey: null });
    expect(() => discordSettings({ channel: 'discord', id: 'default', role: 'r', source: 'env', values: {} })).toThrow(/token/);
    expect(() =>
      discordSettings({ channel: 'discord', id: 'b', role: 'r', source: 'config', values: { token: 't', public_key: 'zz' } }),
    ).toThrow(/public key/);
  });
});

describe('discord rendering and chunking', () => {
  it('markdown → Discord dialect: tables as code blocks, mentions neutralised', () => {
    const out = renderDiscordMarkdown('**粗体** <@123> @everyone\n\n| a | b |\n|---|---|\n| 1 | 2 |');
    expect(out).toContain('**粗体**');
    expect(out).toContain('\\<@123>');
    expect(out).toMatch(/```\n.*a.*b/);
  });

  it('a 4500-character reply opening with a long code fence → every chunk ≤ 2000 with balanced fences', () => {
    const code = Array.from({ length: 121 }, (_, i) => `line ${String(i).padStart(4, '0')}: value = compute(${i})  # 数据`).join('\n');
    const md = `\`\`\`python\n${code}\n\`\`\`\n\nDone.`;
    expect(md.length).toBeGreaterThanOrEqual(4400);
    expect(md.length).toBeLessThanOrEqual(4600);
    const chunks = textChunks({ kind: 'reply', text: md, format: 'markdown' });
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(2000);
      expect(c.text.split('\n').filter((l) => /^```/.test(l)).length % 2).toBe(0);
    }
    expect(chunks[1]!.text.startsWith('```python\n')).toBe(true);
    expect(chunks.map((c) => c.text).join('\n')).toContain('line 0120');
  });
});
