/**
 * The console (docs/console.md) in headless Chromium through the console's data-testid hooks
 * (docs/console.md): an admin signs in with SKILLGATE_ADMIN_TOKEN, sets a secret parameter
 * that is never displayed again (page text, DOM and API after a reload), disables a skill for
 * a role (it leaves that role's `/help` on the chat page), and retries a failed delivery to a
 * loopback Telegram Bot API that refuses first and accepts then (the row ends `sent`).
 *
 * The gateway runs as `npm start` does (embedded PGlite, demo identities, SKILLGATE_ADMIN_TOKEN
 * set, Telegram `default` account in webhook mode pointed at the fake), console at /admin.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/settings.ts';
import { startGateway, type Gateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/log/logger.ts';
import { OUTBOX_CHANNEL } from '../../src/outbox/index.ts';
import { CHAT_NOT_FOUND, FakeTelegram } from '../outbox/fakes.ts';

const ADMIN_TOKEN = 'e2e-admin-' + 'k'.repeat(30);
const SECRET = 'sk-e2e-7c1f0a9b3d5e2468';
const RETRY_TEXT = 'console retry check';

describe('operators console in a browser', () => {
  let gateway: Gateway;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let consoleUrl: string;
  const fake = new FakeTelegram();
  const dir = mkdtempSync(join(tmpdir(), 'sg-console-e2e-'));

  beforeAll(async () => {
    await fake.listen();
    const tg = {
      TELEGRAM_BOT_TOKEN: '123456:TEST',
      TELEGRAM_API_ROOT: fake.url,
      TELEGRAM_WEBHOOK_SECRET: 'e2e_secret',
      TELEGRAM_MODE: 'webhook',
    };
    // channel factories read process.env (src/gateway.ts); this file runs in its own worker
    Object.assign(process.env, tg);
    const settings = loadSettings({ SKILLGATE_DATA_DIR: join(dir, 'data'), PORT: '0', SKILLGATE_ADMIN_TOKEN: ADMIN_TOKEN, ...tg }, dir);
    gateway = await startGateway(settings, createLogger({ level: 'silent' }), {});
    consoleUrl = gateway.url;
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    ctx = await browser.newContext({ locale: 'zh-CN' });
    page = await ctx.newPage();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await fake.close();
    for (const k of ['TELEGRAM_BOT_TOKEN', 'TELEGRAM_API_ROOT', 'TELEGRAM_WEBHOOK_SECRET', 'TELEGRAM_MODE']) delete process.env[k];
  });

  async function section(id: string): Promise<void> {
    await page.getByTestId(`admin-nav-${id}`).click();
    await page.getByTestId(`admin-section-${id}`).waitFor();
  }

  it('refuses a wrong token, then signs the admin in', async () => {
    await page.goto(`${consoleUrl}/admin`);
    await page.getByTestId('admin-token').fill('not-the-token');
    await page.getByTestId('admin-signin').click();
    await expect.poll(() => page.getByTestId('admin-signin-error').textContent()).toContain('登录失败');
    await page.getByTestId('admin-token').fill(ADMIN_TOKEN);
    await page.getByTestId('admin-signin').click();
    await page.getByTestId('admin-nav-secrets').waitFor();
    expect(await page.getByTestId('admin-who').textContent()).toContain('管理员');
    const cookies = await ctx.cookies(`${consoleUrl}/admin`);
    expect(cookies.find((c) => c.name === 'sg_admin')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it('sets a secret parameter that is never displayed again (R-CFG-05)', async () => {
    await section('secrets');
    await page.getByTestId('secrets-role').selectOption('default');
    await page.getByTestId('secrets-skill').selectOption('notify');
    await page.getByTestId('param-key').fill('API_TOKEN');
    await page.getByTestId('param-value').fill(SECRET);
    await page.getByTestId('param-save').click();
    await expect.poll(() => page.getByTestId('param-result').textContent()).toContain('API_TOKEN');
    expect(await page.getByTestId('param-state-API_TOKEN').textContent()).toBe('已设置');
    expect(await page.getByTestId('param-value').inputValue()).toBe('');

    await page.reload();
    await page.getByTestId('admin-section-secrets').waitFor();
    await page.getByTestId('secrets-skill').selectOption('notify');
    await expect.poll(() => page.getByTestId('param-state-API_TOKEN').textContent()).toBe('已设置');
    const html = await page.content();
    expect(html).not.toContain(SECRET);
    expect(html).not.toContain(SECRET.slice(0, 8));
    const api = await page.evaluate(async () => (await fetch('/admin/api/secrets/default/notify')).text());
    expect(api).toContain('"API_TOKEN"');
    expect(api).not.toContain(SECRET.slice(0, 8));
  });

  it('a defaulted version is a notice, not a problem (as in skill check)', async () => {
    await section('skills');
    await page.getByTestId('skills-role').selectOption('default');
    const row = page.getByTestId('skill-row').filter({ has: page.getByTestId('skill-view-countdown') });
    await row.waitFor();
    expect(await row.locator('.problems').count()).toBe(0);
    expect(await row.locator('span.muted[title*="version.default"]').count()).toBe(1);
    await page.getByTestId('skill-view-countdown').click();
    await page.getByTestId('skill-doc').waitFor();
    expect(await page.getByTestId('skill-problems').count()).toBe(0);
  });

  it("disables a skill for a role and it leaves that role's /help", async () => {
    await section('skills');
    await page.getByTestId('skills-role').selectOption('default');
    const toggle = page.getByTestId('skill-toggle-countdown');
    expect(await toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    await expect.poll(() => page.getByTestId('skills-status').textContent()).toContain('已停用 countdown');
    await page.reload();
    await page.getByTestId('admin-section-skills').waitFor();
    await expect.poll(() => page.getByTestId('skill-toggle-countdown').isChecked()).toBe(false);

    const chat = await ctx.newPage();
    await chat.goto(gateway.url);
    await chat.getByTestId('signed-in-name').filter({ hasText: /\S/ }).waitFor();
    // the next turn already uses the role's new scope
    await chat.getByTestId('chat-input').fill('/help');
    await chat.getByTestId('chat-input').press('Enter');
    const bot = chat.getByTestId('msg-bot').filter({ hasText: 'file_info' });
    await bot.first().waitFor({ timeout: 30_000 });
    const help = (await bot.last().textContent()) ?? '';
    expect(help).toContain('file_info');
    expect(help).not.toContain('countdown');
    await chat.close();
  });

  it('retries a failed delivery and it ends sent', async () => {
    fake.script(RETRY_TEXT, [CHAT_NOT_FOUND]);
    const db = gateway.db;
    const target = { channel: 'telegram', account: 'default', chat_id: '4242' };
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO skillgate.outbox_messages (channel, account, chat_key, target, message, next_attempt_at, created_at)
       VALUES ('telegram', 'default', 'telegram:default:4242', $1::jsonb, $2::jsonb, now(), now()) RETURNING id::text AS id`,
      [JSON.stringify(target), JSON.stringify({ kind: 'notice', text: RETRY_TEXT, format: 'plain' })],
    );
    const id = rows[0]!.id;
    await db.notify(OUTBOX_CHANNEL, id);
    const statusOf = async () =>
      (await db.query<{ status: string }>(`SELECT status FROM skillgate.outbox_messages WHERE id = $1::bigint`, [id])).rows[0]?.status;
    await expect.poll(statusOf, { timeout: 30_000 }).toBe('failed');

    await section('outbox');
    const row = page.getByTestId('outbox-row').filter({ hasText: RETRY_TEXT });
    await row.waitFor();
    expect(await row.textContent()).toContain('chat not found');
    await page.getByTestId(`outbox-retry-${id}`).click();
    await expect.poll(() => page.getByTestId('outbox-result').textContent()).toContain(id);
    await expect.poll(statusOf, { timeout: 30_000 }).toBe('sent');
    const sends = fake.requests.filter((r) => r.text === RETRY_TEXT);
    expect(sends.map((r) => r.status)).toEqual([400, 200]);
    await page.getByTestId('outbox-refresh').click();
    await expect.poll(() => page.getByTestId('outbox-row').filter({ hasText: RETRY_TEXT }).count()).toBe(0);
  });
});
