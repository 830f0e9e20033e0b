/**
 * Results, help and plain text as a person sees them (docs/results.md "How a result is shown",
 * docs/chat-authoring.md "Help", "Plain text"): the gateway as `npm start` runs it (embedded
 * PGlite, no model), driven in headless Chromium. Screenshots are kept under
 * `test-artifacts/screenshots/` (SKILLGATE_TEST_ARTIFACTS overrides the folder).
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/settings.ts';
import { DATATABLE_ACTIONS } from '../../src/datatable/index.ts';
import { startGateway, type Gateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/log/logger.ts';

const SHOTS = join(resolve(process.env.SKILLGATE_TEST_ARTIFACTS ?? 'test-artifacts'), 'screenshots');

describe('readable results, help and suggestions in a browser', () => {
  let gateway: Gateway;
  let browser: Browser;
  let page: Page;
  const dir = mkdtempSync(join(tmpdir(), 'sg-readable-'));

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const settings = loadSettings({ SKILLGATE_DATA_DIR: join(dir, 'data'), PORT: '0' }, dir);
    gateway = await startGateway(settings, createLogger({ level: 'silent' }), {});
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await (await browser.newContext({ locale: 'zh-CN', viewport: { width: 900, height: 900 } })).newPage();
    await page.goto(gateway.url);
    await page.getByTestId('signed-in-name').filter({ hasText: /\S/ }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  /** Send `text` and return the bot message that answers it. */
  async function ask(text: string): Promise<Locator> {
    const before = await page.getByTestId('msg-bot').count();
    const input = page.getByTestId('chat-input');
    await input.fill(text);
    await input.press('Enter');
    await expect.poll(() => page.getByTestId('msg-bot').count(), { timeout: 30_000 }).toBeGreaterThan(before);
    return page.getByTestId('msg-bot').nth(before);
  }

  async function shot(msg: Locator, name: string): Promise<void> {
    await msg.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, `${name}.png`) });
  }

  it('a query of a 3-row table is an HTML table, not JSON', async () => {
    await ask(
      '/datatable {"action":"create_table","payload":{"table_name":"工单","fields":[{"title":"描述","uidt":"文本"},{"title":"费用","uidt":"金额"},{"title":"状态","uidt":"单选","options":["待处理","已完成"]}]}}',
    );
    const inserted = await ask(
      '/datatable {"action":"insert_batch","payload":{"table_name":"工单","records":[{"描述":"3号泵漏水","费用":1200,"状态":"待处理"},{"描述":"灯坏了","费用":35.5,"状态":"已完成"},{"描述":"门锁","状态":"待处理"}]}}',
    );
    expect(await inserted.textContent()).toContain('新增 3 条');
    const msg = await ask('/datatable action=query table_name=工单');
    await msg.locator('table').waitFor();
    expect(await msg.locator('pre').count()).toBe(0);
    expect(await msg.locator('thead th').allTextContents()).toEqual(['描述', '费用', '状态', 'id', 'created_at']);
    expect(await msg.locator('tbody tr').count()).toBe(3);
    expect(await msg.locator('tbody tr').first().locator('td').allTextContents()).toEqual([
      '门锁',
      '',
      '待处理',
      '3',
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    ]);
    expect(await msg.locator('tbody tr').last().locator('td').nth(1).textContent()).toBe('1,200.00');
    const body = (await msg.textContent()) ?? '';
    for (const internal of ['pageInfo', 'totalRows', '"list"', '{']) expect(body).not.toContain(internal);
    expect(body).toContain('工单（共 3 条）');
    await shot(msg, 'query-3-rows');
  });

  it('list_tables names the tables, without schema or qualified names', async () => {
    const msg = await ask('/datatable action=list_tables');
    const body = (await msg.textContent()) ?? '';
    expect(body).toContain('数据表（共 1 张）');
    expect(await msg.locator('li').allTextContents()).toEqual(['工单']);
    for (const internal of ['org_data', 'qualified', 'schema', '"result"', 'count']) expect(body).not.toContain(internal);
    await shot(msg, 'list-tables');
  });

  it('/help lists every skill with its whole purpose, nothing cut inside a word, no model-facing text', async () => {
    const msg = await ask('/help');
    const body = (await msg.textContent()) ?? '';
    expect(body).toContain('数据表统一入口：建表、查询、统计、增删改、批量导入、SQL（PostgreSQL，按组织隔离）。');
    expect(body).not.toMatch(/[\p{L}\p{N}]…/u);
    expect(body).not.toContain('input =');
    expect(body).not.toContain('成功判据');
    expect(await msg.getByTestId('command-button').count()).toBeGreaterThan(10);
    await shot(msg, 'help');
  });

  it('/help datatable lists every action, each with a working example', async () => {
    const msg = await ask('/help datatable');
    const body = (await msg.textContent()) ?? '';
    expect(body).not.toMatch(/[\p{L}\p{N}]…/u);
    for (const action of DATATABLE_ACTIONS) {
      expect(await msg.locator('strong', { hasText: new RegExp(`^${action}$`) }).count()).toBe(1);
      expect(
        await msg
          .getByTestId('command-button')
          .filter({ hasText: new RegExp(`^/datatable (action=${action}( |$)|\\{"action":"${action}")`) })
          .count(),
      ).toBe(1);
    }
    expect(body).toContain('limit (可选, 整数, 1–1000)');
    await shot(msg, 'help-datatable');
    // an example put in the box by its button runs as written
    await msg
      .getByTestId('command-button')
      .filter({ hasText: /^\/datatable action=list_tables$/ })
      .click();
    expect(await page.getByTestId('chat-input').inputValue()).toBe('/datatable action=list_tables');
    await page.getByTestId('chat-input').fill('');
  });

  it('a plain sentence gets under 300 characters with suggestion buttons', async () => {
    const msg = await ask('我想看看数据表里有哪些记录');
    const body = (await msg.textContent()) ?? '';
    expect([...body].length).toBeLessThan(300);
    expect(body).not.toContain('可用命令');
    const buttons = msg.getByTestId('command-button');
    expect(await buttons.count()).toBeGreaterThanOrEqual(1);
    expect(await buttons.count()).toBeLessThanOrEqual(4); // three suggestions and /help
    expect(await buttons.first().textContent()).toBe('/datatable');
    await shot(msg, 'plain-sentence');
    await buttons.first().click();
    expect(await page.getByTestId('chat-input').inputValue()).toBe('/datatable');
    const paste = await ask('漏'.repeat(10_000));
    expect([...((await paste.textContent()) ?? '')].length).toBeLessThan(300);
    const emoji = await ask('👍');
    expect([...((await emoji.textContent()) ?? '')].length).toBeLessThan(300);
    expect(await emoji.getByTestId('command-button').count()).toBeGreaterThanOrEqual(1);
  });
});
