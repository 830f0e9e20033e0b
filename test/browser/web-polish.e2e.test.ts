/**
 * The web page on the embedded default in headless Chromium (docs/web-protocol.md): a first
 * visit's welcome, the favicon, the header at a 390 px phone width (screenshot kept), the
 * countdown example's progress lines, one bubble when a run is stopped, and frames refused with
 * `rate_limited` sent again after `retry_after_ms` (shown pending meanwhile).
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRig, type Rig } from '../e2e/rig.ts';
import { keepScreenshot } from './artifacts.ts';

describe('web page polish (browser, real gateway)', () => {
  let rig: Rig;
  let browser: Browser;
  let page: Page;

  async function send(text: string): Promise<void> {
    await page.getByTestId('chat-input').fill(text);
    await page.getByTestId('chat-input').press('Enter');
  }
  const bot = (text: string | RegExp) => page.getByTestId('msg-bot').filter({ hasText: text });

  beforeAll(async () => {
    rig = await startRig('embedded', [], { feishu: false, telegram: false });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await (await browser.newContext({ locale: 'zh-CN', viewport: { width: 390, height: 844 } })).newPage();
    await page.goto(rig.gateway.url);
    await page.getByTestId('signed-in-name').filter({ hasText: /\S/ }).waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await rig?.close();
  });

  it('a first visit shows a welcome with three suggested actions; the header stays on one line at 390 px', async () => {
    const welcome = page.getByTestId('welcome');
    await welcome.waitFor();
    expect(await page.getByTestId('welcome-action').count()).toBe(3);
    await page.locator('#conn.online').waitFor();
    const conn = (await page.locator('#conn').boundingBox())!;
    const me = (await page.getByTestId('signed-in-name').boundingBox())!;
    const lineHeight = Number(await page.evaluate(`parseFloat(getComputedStyle(document.getElementById('conn')).lineHeight) || 20`));
    // each on a single line, side by side in one row
    expect(conn.height).toBeLessThan(lineHeight * 1.5);
    expect(me.height).toBeLessThan(lineHeight * 1.5);
    expect(Math.abs(conn.y + conn.height / 2 - (me.y + me.height / 2))).toBeLessThan(lineHeight / 2);
    const header = (await page.locator('header.top').boundingBox())!;
    expect(header.width).toBeLessThanOrEqual(390);
    expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390);
    await keepScreenshot(page, 'web-390px-welcome');

    // a suggestion runs: the welcome goes away with the first message
    await page.getByTestId('welcome-action').first().click();
    await page.getByTestId('msg-user').first().waitFor();
    expect(await welcome.isVisible()).toBe(false);
    await bot(/\S/).first().waitFor({ timeout: 30_000 });
    await keepScreenshot(page, 'web-390px-help');
  });

  it('references you can see: each sent file chip shows its id, file= takes the id or the name, an unknown id lists what exists', async () => {
    for (const [name, body] of [
      ['a.txt', 'first file'],
      ['b.txt', 'second file'],
    ] as const) {
      await page.getByTestId('chat-upload').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(body) });
      await page.locator('[data-testid="upload-chip"][data-state="uploaded"]').filter({ hasText: name }).waitFor({ timeout: 30_000 });
      await send(`/file_info file=${name}`);
      await bot(`已收到`).filter({ hasText: name }).waitFor({ timeout: 30_000 });
    }
    const refs = page.locator('[data-testid="msg-user"] [data-testid="sent-upload"]');
    await expect.poll(() => refs.count(), { timeout: 30_000 }).toBe(2);
    expect(await page.getByTestId('upload-ref').allTextContents()).toEqual(['file_1', 'file_2']);
    expect(await refs.nth(1).textContent()).toContain('b.txt');
    expect(await bot('已收到').last().textContent()).toContain('file_2（b.txt）');

    // the newer file by its id, the older by its name
    const shows = async (text: string, what: RegExp): Promise<void> => {
      const n = await bot(what).count();
      await send(text);
      await expect.poll(() => bot(what).count(), { timeout: 30_000 }).toBe(n + 1);
    };
    await shows('/file_info file=file_2', /second file/);
    await shows('/file_info file=a.txt', /first file/);
    // an id this conversation does not have: refused, with the files it has
    await send('/file_info file=file_3');
    const refused = bot('本会话没有 file_3');
    await refused.waitFor({ timeout: 30_000 });
    expect(await refused.textContent()).toMatch(/file_1（a\.txt）、file_2（b\.txt）/);
    await keepScreenshot(page, 'web-upload-refs');
  });

  it('/favicon.ico is served (not 404) and the page links it', async () => {
    const res = await page.request.get(`${rig.gateway.url}/favicon.ico`);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toContain('image/x-icon');
    const body = await res.body();
    expect(body.readUInt16LE(2)).toBe(1); // ICO header: type 1 = icon
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.ico');
  });

  it('the countdown shows progress lines; stop answers with one bubble', async () => {
    const before = await page.getByTestId('msg-bot').count();
    await send('/countdown seconds=60');
    await page
      .getByTestId('chat-status')
      .filter({ hasText: /倒计时：2\/60 秒/ })
      .waitFor({ timeout: 30_000 });
    await keepScreenshot(page, 'web-countdown-progress');
    await page.getByTestId('stop-button').click();
    await bot('已停止').waitFor({ timeout: 30_000 });
    // the next turn's answer comes after anything the stopped turn could still send
    await send('/countdown seconds=1');
    await bot('倒计时 1 秒完成').waitFor({ timeout: 30_000 });
    const texts = (await page.getByTestId('msg-bot').allTextContents()).slice(before);
    expect(texts.filter((t) => t.includes('停止'))).toHaveLength(1);
    expect(texts).toHaveLength(2);
    await keepScreenshot(page, 'web-stop-one-bubble');
  });

  it('messages typed faster than the frame limit are shown pending and re-sent after retry_after_ms: none is lost', async () => {
    const n = 24;
    // typed and sent at once (the page's own submit path), faster than 20 frames per 10 s
    await page.evaluate(`(() => {
      const input = document.querySelector('[data-testid="chat-input"]');
      const form = document.getElementById('composer');
      for (let i = 0; i < ${n}; i++) {
        input.value = 'rate-' + i;
        form.requestSubmit();
      }
    })()`);
    // (the refusals are answered after the accepted frames' acks: allow for a slow machine)
    await page.getByTestId('msg-pending').first().waitFor({ timeout: 60_000 });
    await keepScreenshot(page, 'web-rate-limited-pending');
    await page.getByTestId('msg-pending').first().waitFor({ state: 'detached', timeout: 60_000 });
    await expect
      .poll(
        async () =>
          Number(
            (
              await rig.gateway.db.query<{ n: string }>(
                `SELECT count(DISTINCT payload->>'raw_input')::text AS n FROM skillgate.inbox_events WHERE payload->>'raw_input' LIKE 'rate-%'`,
              )
            ).rows[0]!.n,
          ),
        { timeout: 60_000 },
      )
      .toBe(n);
    expect(await page.getByTestId('msg-pending').count()).toBe(0);
  }, 120_000);
});
