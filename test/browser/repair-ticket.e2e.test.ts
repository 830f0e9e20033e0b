/**
 * The repair ticket, the web half, in headless Chromium — the README walkthrough exactly: the
 * embedded default (PGlite, demo identities), two browser windows with their own cookies
 * (reporter demo_reporter, worker demo_worker picked in the demo identity list), ops on a fake
 * Apprise API. The worker goes on duty, the reporter reports with a photo, the worker sees the
 * ticket with the photo and replies 「完成了，费用 1200 元」 with a photo, the reporter sees the
 * completion with the photo. (The photo bubble is an <img> once the web adapter serves files
 * that send_message delivers from another session; until then it shows the file name.)
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PNG, startRig, tickets, type Rig } from '../e2e/rig.ts';

describe('repair ticket in the web chat, two windows (README walkthrough)', () => {
  let rig: Rig;
  let browser: Browser;
  let reporter: Page;
  let worker: Page;
  const dir = mkdtempSync(join(tmpdir(), 'sg-repair-web-'));

  async function open(as: string): Promise<Page> {
    // one context per window: its own cookie jar, like a second browser profile
    const page = await (await browser.newContext({ locale: 'zh-CN' })).newPage();
    await page.goto(rig.gateway.url);
    await page.getByTestId('signed-in-name').filter({ hasText: /\S/ }).waitFor();
    if ((await page.getByTestId('demo-select').inputValue()) !== as) {
      await page.getByTestId('demo-select').selectOption(as);
      await page.getByTestId('signed-in-name').filter({ hasText: '李四' }).waitFor();
    }
    return page;
  }

  async function send(page: Page, text: string, photo?: string): Promise<void> {
    if (photo) {
      await page.getByTestId('chat-upload').setInputFiles(photo);
      await page.getByTestId('upload-chip').first().waitFor({ timeout: 30_000 });
    }
    const input = page.getByTestId('chat-input');
    await input.fill(text);
    await input.press('Enter');
  }

  const bot = (page: Page, text: string) => page.getByTestId('msg-bot').filter({ hasText: text });
  /** A media bubble of that file: an <img> when the file has a URL for this user, else its name. */
  const media = (page: Page, name: string) =>
    page.locator(`[data-testid="msg-bot"].media:has(img[alt^="${name}"]), [data-testid="msg-bot"].media:has-text("${name}")`).first();

  beforeAll(async () => {
    rig = await startRig('embedded', [], { feishu: false, telegram: false });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    reporter = await open('demo_reporter');
    worker = await open('demo_worker');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  });

  it('R-MSG-02 R-MSG-07 R-MSG-09: on duty → report with photo → worker sees ticket + photo → reply with cost and photo → reporter sees completion + photo', async () => {
    await send(worker, '/repair_ticket action=值班设置');
    await bot(worker, '现在值班').waitFor({ timeout: 30_000 });

    const pump = join(dir, '3号泵.png');
    writeFileSync(pump, PNG);
    await send(reporter, '/repair_ticket action=报修 描述="3号泵漏水" 位置=泵房', pump);
    await bot(reporter, '工单号').waitFor({ timeout: 30_000 });
    expect(await bot(reporter, '工单号').last().textContent()).toContain('T-1');

    // the worker's window: the ticket and its photo, pushed by send_message
    await bot(worker, '新工单 T-1').waitFor({ timeout: 30_000 });
    await media(worker, '报修照片').waitFor({ timeout: 30_000 });
    await worker.locator('[data-testid="msg-bot"] img[alt^="报修照片"]').waitFor({ timeout: 30_000 });

    const fixed = join(dir, '修好了.png');
    writeFileSync(fixed, PNG);
    await send(worker, '完成了，费用 1200 元', fixed);
    await bot(worker, '已记录').waitFor({ timeout: 30_000 });
    expect(await bot(worker, '已记录').last().textContent()).toContain('1,200 元');

    // the reporter's window: completion text and the photo
    await bot(reporter, '已维修完成').waitFor({ timeout: 30_000 });
    expect(await bot(reporter, '已维修完成').last().textContent()).toContain('1,200 元');
    await media(reporter, '完成照片').waitFor({ timeout: 30_000 });
    const img = reporter.locator('[data-testid="msg-bot"] img[alt^="完成照片"]');
    await img.waitFor({ timeout: 30_000 });
    await expect.poll(() => img.evaluate((e) => (e as unknown as { naturalWidth: number }).naturalWidth), { timeout: 30_000 }).toBe(1);

    const [row] = await tickets(rig);
    expect(row).toMatchObject({
      状态: '已完成',
      报修人: '张三',
      维修工: '李四',
      origin_channel: 'web',
      origin_openid: 'demo_reporter',
      维修工联系方式: 'web:demo_worker',
    });
    expect(Number(row!.费用)).toBe(1200);
    expect(rig.apprise.calls.map((c) => c.fields.title)).toEqual(['新报修 T-1', '维修完成']);
  }, 180_000);
});
