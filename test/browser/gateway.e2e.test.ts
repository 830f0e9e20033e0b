/**
 * End to end: the gateway as `npm start` runs it (embedded PGlite, built-in
 * skills, demo identities), driven in headless Chromium through the chat page's data-testid
 * hooks (docs/web-protocol.md): `/help` shows the skills, a datatable command creates and lists a
 * table, an uploaded file referred to as `file_1` reaches the skill.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/settings.ts';
import { startGateway, type Gateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/log/logger.ts';

describe('gateway end to end in a browser', () => {
  let gateway: Gateway;
  let browser: Browser;
  let page: Page;
  const dir = mkdtempSync(join(tmpdir(), 'sg-e2e-'));

  beforeAll(async () => {
    const settings = loadSettings({ SKILLGATE_DATA_DIR: join(dir, 'data'), PORT: '0' }, dir);
    gateway = await startGateway(settings, createLogger({ level: 'silent' }), {});
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await (await browser.newContext({ locale: 'zh-CN' })).newPage();
    await page.goto(gateway.url);
    // the embedded default signs in a demo identity by itself
    await page.getByTestId('signed-in-name').filter({ hasText: /\S/ }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  async function send(text: string): Promise<void> {
    const input = page.getByTestId('chat-input');
    await input.fill(text);
    await input.press('Enter');
  }

  it('/help shows the skills this role can use', async () => {
    await send('/help');
    const bot = page.getByTestId('msg-bot').filter({ hasText: 'datatable' });
    await bot.waitFor({ timeout: 30_000 });
    const body = await bot.last().textContent();
    expect(body).toContain('file_info');
    expect(body).toContain('countdown');
  });

  it('a datatable command creates a table and another lists it', async () => {
    await send(
      '/datatable {"action":"create_table","payload":{"table_name":"报修单","fields":[{"title":"描述","uidt":"文本"},{"title":"状态","uidt":"单选","options":["待处理","已完成"]}]}}',
    );
    await page.getByTestId('msg-bot').filter({ hasText: '报修单' }).first().waitFor({ timeout: 30_000 });
    const before = await page.getByTestId('msg-bot').count();
    await send('/datatable action=list_tables');
    await expect.poll(() => page.getByTestId('msg-bot').count(), { timeout: 30_000 }).toBeGreaterThan(before);
    await expect.poll(async () => (await page.getByTestId('msg-bot').last().textContent()) ?? '', { timeout: 30_000 }).toContain('报修单');
  });

  it('an uploaded file referred to as file_1 reaches the skill', async () => {
    const file = join(dir, '设备清单.txt');
    writeFileSync(file, '泵房3 压力表\n泵房4 阀门\n', 'utf8');
    await page.getByTestId('chat-upload').setInputFiles(file);
    await page.getByTestId('upload-chip').filter({ hasText: '设备清单.txt' }).first().waitFor({ timeout: 30_000 });
    // the upload travels with this message and becomes file_1 before the skill runs
    await send('/file_info file=file_1');
    const answer = page.getByTestId('msg-bot').filter({ hasText: '泵房3 压力表' });
    await answer.waitFor({ timeout: 30_000 });
    expect(await answer.last().textContent()).toContain('设备清单.txt');
  });

  it('after a reload the history shows both sides of the conversation', async () => {
    const users = await page.getByTestId('msg-user').count();
    expect(users).toBeGreaterThanOrEqual(4);
    await page.reload();
    await page.getByTestId('msg-bot').filter({ hasText: '泵房3 压力表' }).first().waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByTestId('msg-user').count(), { timeout: 30_000 }).toBe(users);
    expect(await page.getByTestId('msg-user').first().textContent()).toBe('/help');
  });
});
