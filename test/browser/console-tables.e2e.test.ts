/**
 * The console's table browser (docs/console.md "Table browser") in headless Chromium: the
 * admin signs in with the token, opens the section, sees a 3-row data table as an HTML table
 * with cells written as the datatable's display writes them (money, an instant in the role's
 * zone, a long cell cut with its full text in the tooltip), and pages through a 60-row table
 * 50 at a time. The console runs on the test rig (its own express app, embedded PGlite);
 * a screenshot is kept (test/browser/artifacts.ts).
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminConsoleDeps } from '../../src/console/index.ts';
import type { ConfigFile } from '../../src/config/file.ts';
import { runDatatable } from '../../src/datatable/index.ts';
import type { Db, Tx } from '../../src/store/db.ts';
import { openTestDb } from '../helpers/db.ts';
import { ADMIN_TOKEN, startConsoleRig, type ConsoleRig } from '../console/rig.ts';
import { keepScreenshot } from './artifacts.ts';

const CONFIG: ConfigFile = {
  roles: [{ id: 'default', org_id: 'demo', skills: ['*'], access: 'open', allow: [], timezone: 'Asia/Shanghai' }],
  accounts: [],
};
const LONG = 'Quarterly maintenance of the rooftop cooling units and replacement of every worn filter before summer';

describe('console table browser in a browser', () => {
  let db: Db;
  let rig: ConsoleRig;
  let browser: Browser;
  let page: Page;

  async function dt(action: string, payload: Record<string, unknown>) {
    const env = await runDatatable(
      { action, payload },
      { org_id: 'demo', role_id: 'default', team_role: 'owner', db, db_factory: (fn: (tx: Tx) => Promise<unknown>) => db.transaction(fn) },
    );
    expect(env.success, JSON.stringify(env)).toBe(true);
    return env;
  }

  beforeAll(async () => {
    db = await openTestDb('embedded');
    rig = await startConsoleRig(db, { deps: { config: CONFIG } as Partial<AdminConsoleDeps> });
    const small = String(
      (
        await dt('create_table', {
          table_name: '合同',
          fields: [
            { title: '名称', uidt: '文本' },
            { title: '金额', uidt: '金额' },
            { title: '到期', uidt: '日期时间' },
            { title: '说明', uidt: '长文本' },
          ],
        })
      ).id,
    );
    await dt('insert_batch', {
      table_id: small,
      records: [
        { 名称: '甲', 金额: 1234.5, 到期: '2026-03-04T00:15:00Z', 说明: LONG },
        { 名称: '乙', 金额: 10 },
        { 名称: '丙', 金额: 0.25 },
      ],
    });
    const big = String((await dt('create_table', { table_name: '流水', fields: [{ title: '序号', uidt: '整数' }] })).id);
    await dt('insert_batch', { table_id: big, records: Array.from({ length: 60 }, (_, i) => ({ 序号: i + 1 })) });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await (await browser.newContext({ locale: 'zh-CN' })).newPage();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await rig?.close();
    await db?.close();
  });

  it('shows a 3-row table as an HTML table and pages through a 60-row one', async () => {
    await page.goto(`${rig.url}/admin#tables`);
    await page.getByTestId('admin-token').fill(ADMIN_TOKEN);
    await page.getByTestId('admin-signin').click();
    await page.getByTestId('admin-section-tables').waitFor();
    await expect.poll(() => page.getByTestId('tables-row').count()).toBe(3);
    const grid = page.getByTestId('tables-grid');
    const heads = await grid.locator('table thead th').allTextContents();
    expect(heads.slice(0, 4)).toEqual(['名称', '金额', '到期', '说明']);
    const first = page.getByTestId('tables-row').filter({ hasText: '甲' });
    const cells = await first.locator('td').allTextContents();
    expect(cells.slice(0, 3)).toEqual(['甲', '1,234.50', '2026-03-04 08:15:00']);
    expect(cells[3]!.endsWith('…')).toBe(true);
    expect(await first.locator('td').nth(3).locator('span').getAttribute('title')).toBe(LONG);
    expect(await page.getByTestId('tables-page').textContent()).toBe('第 1–3 条，共 3 条');
    expect(await page.getByTestId('tables-next').isDisabled()).toBe(true);
    // read-only: no inputs or buttons inside the grid
    expect(await grid.locator('input, textarea, button, [contenteditable]').count()).toBe(0);
    await keepScreenshot(page, 'console-tables');

    await page.getByTestId('tables-table').selectOption({ label: '流水' });
    await expect.poll(() => page.getByTestId('tables-page').textContent()).toBe('第 1–50 条，共 60 条');
    expect(await page.getByTestId('tables-row').count()).toBe(50);
    expect(await page.getByTestId('tables-prev').isDisabled()).toBe(true);
    const firstPage = await page.getByTestId('tables-row').locator('td:first-child').allTextContents();
    await page.getByTestId('tables-next').click();
    await expect.poll(() => page.getByTestId('tables-page').textContent()).toBe('第 51–60 条，共 60 条');
    expect(await page.getByTestId('tables-row').count()).toBe(10);
    expect(await page.getByTestId('tables-next').isDisabled()).toBe(true);
    const secondPage = await page.getByTestId('tables-row').locator('td:first-child').allTextContents();
    expect([...firstPage, ...secondPage].map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    await page.getByTestId('tables-prev').click();
    await expect.poll(() => page.getByTestId('tables-page').textContent()).toBe('第 1–50 条，共 60 条');
    await keepScreenshot(page, 'console-tables-paged');
  });
});
