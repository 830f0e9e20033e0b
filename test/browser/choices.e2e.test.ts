/**
 * Ask, don't guess (docs/messaging.md "Questions with choices"), in headless Chromium on the
 * embedded default: a worker with two open tickets replies 「完成了，费用 500 元」 without a
 * ticket number. The reply is a question with one choice button per ticket; until a button is
 * pressed both tickets stay 处理中; pressing one completes exactly that ticket.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRig, tickets, type Rig } from '../e2e/rig.ts';
import { keepScreenshot } from './artifacts.ts';

describe('a completion reply that fits two tickets asks which one (web chat)', () => {
  let rig: Rig;
  let browser: Browser;
  let reporter: Page;
  let worker: Page;

  async function open(as: string): Promise<Page> {
    const page = await (await browser.newContext({ locale: 'zh-CN' })).newPage();
    await page.goto(rig.gateway.url);
    await page.getByTestId('signed-in-name').filter({ hasText: /\S/ }).waitFor();
    if ((await page.getByTestId('demo-select').inputValue()) !== as) {
      await page.getByTestId('demo-select').selectOption(as);
      await page.getByTestId('signed-in-name').filter({ hasText: '李四' }).waitFor();
    }
    return page;
  }
  async function send(page: Page, text: string): Promise<void> {
    await page.getByTestId('chat-input').fill(text);
    await page.getByTestId('chat-input').press('Enter');
  }
  const bot = (page: Page, text: string) => page.getByTestId('msg-bot').filter({ hasText: text });

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

  it('R-MSG-09: two open tickets → choice buttons, nothing changed; the pressed ticket alone is completed', async () => {
    await send(worker, '/repair_ticket action=值班设置');
    await bot(worker, '现在值班').waitFor({ timeout: 30_000 });
    await send(reporter, '/repair_ticket action=报修 描述="3号泵漏水" 位置=泵房');
    await bot(worker, '新工单 T-1').waitFor({ timeout: 30_000 });
    await send(reporter, '/repair_ticket action=报修 描述="5号阀门卡死" 位置=二楼');
    await bot(worker, '新工单 T-2').waitFor({ timeout: 30_000 });

    await send(worker, '完成了，费用 500 元');
    const buttons = worker.getByTestId('choice-button');
    await buttons.first().waitFor({ timeout: 30_000 });
    expect(await buttons.count()).toBe(2);
    expect(await buttons.allTextContents()).toEqual([expect.stringContaining('T-2'), expect.stringContaining('T-1')]);
    expect(await bot(worker, '是哪一张').count()).toBe(1);
    // the question changed nothing
    expect((await tickets(rig)).map((t) => [Number(t.id), t.状态, t.费用])).toEqual([
      [1, '处理中', null],
      [2, '处理中', null],
    ]);
    await keepScreenshot(worker, 'choice-two-tickets');

    await buttons.filter({ hasText: 'T-1' }).click();
    await bot(worker, '已记录').waitFor({ timeout: 30_000 });
    expect(await bot(worker, '已记录').last().textContent()).toContain('T-1');
    expect(await buttons.first().isDisabled()).toBe(true);
    const rows = await tickets(rig);
    expect(rows.map((t) => [Number(t.id), t.状态])).toEqual([
      [1, '已完成'],
      [2, '处理中'],
    ]);
    expect(Number(rows[0]!.费用)).toBe(500);
    expect(rows[1]!.费用).toBeNull();
    await bot(reporter, '已维修完成').waitFor({ timeout: 30_000 });
    await keepScreenshot(worker, 'choice-answered');

    // T-2's wait is still open: the next reply completes it without a question
    await send(worker, '完成了，费用 300 元');
    await bot(worker, 'T-2 已完成').waitFor({ timeout: 30_000 });
    const after = await tickets(rig);
    expect(after.map((t) => [Number(t.id), t.状态, Number(t.费用)])).toEqual([
      [1, '已完成', 500],
      [2, '已完成', 300],
    ]);
  }, 180_000);
});
