/**
 * The chat page in a real Chromium (playwright-core) against the web channel on a real server
 * with an echo host (data-testid hooks of docs/web-protocol.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openEmbeddedDb } from '../../src/store/open.ts';
import { issueWebToken } from '../../src/web-auth/tokens.ts';
import { startRig, type Rig } from '../web/helpers.ts';

const HOSTILE = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1"> **bold**';
const HOSTILE_HTML = '<p><script>window.__pwned=1</script><img src=x onerror="window.__pwned=1"><strong>bold</strong></p>';

describe('web chat page (browser)', () => {
  let db: Db;
  let rig: Rig;
  let broken: Rig;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    db = await openEmbeddedDb();
    await migrate(db);
    rig = await startRig(db);
    rig.host.answer = (msg) => {
      if (msg.kind !== 'message') return null;
      const text = msg.raw_input ?? '';
      if (text === 'slow' || text === '/stop') return null; // a turn still running
      if (text === 'delete it') {
        return {
          kind: 'reply',
          text: '',
          format: 'markdown',
          final: true,
          confirm: {
            token: 'tok_browser_1',
            prompt_md: '确认删除 **3** 行？',
            options: [
              { id: 'confirm', label: '确认', style: 'danger' },
              { id: 'cancel', label: '取消', style: 'secondary' },
            ],
            expires_at: new Date(Date.now() + 300_000).toISOString(),
          },
        };
      }
      if (text === 'hostile') return { kind: 'reply', text: 'see below', format: 'markdown', display_md: HOSTILE, final: true };
      const files = msg.attachments.map((a) => a.filename).join(',');
      return {
        kind: 'reply',
        text: files ? `收到文件 ${files}` : `echo: ${text}`,
        format: 'markdown',
        reply_to: msg.message_id,
        final: true,
      };
    };
    // A server whose renderer is broken (passes markup through): the page's DOMPurify must hold.
    broken = await startRig(db, { renderHtml: (md) => md, dataDir: rig.dataDir });
    broken.host.answer = () => ({ kind: 'reply', text: HOSTILE_HTML, format: 'markdown', final: true });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await (await browser.newContext({ locale: 'zh-CN' })).newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await broken?.close();
    await rig?.close();
    await db?.close();
  });

  it('signs in with #token, removes it from the address bar, and Enter sends → a msg-bot answer', async () => {
    const token = await issueWebToken(db, 'demo', 'alice');
    await page.goto(`${rig.url}/#token=${token}`);
    await page.getByTestId('signed-in-name').filter({ hasText: 'Alice' }).waitFor();
    expect(page.url()).not.toContain('token');
    const input = page.getByTestId('chat-input');
    await input.fill('第一行');
    await input.press('Shift+Enter');
    await input.pressSequentially('第二行');
    expect(await input.inputValue()).toBe('第一行\n第二行');
    await input.press('Enter');
    await page.getByTestId('msg-bot').filter({ hasText: 'echo: 第一行' }).waitFor();
    expect(await page.getByTestId('msg-user').last().textContent()).toBe('第一行\n第二行');
    expect(rig.host.received.at(-1)!.raw_input).toBe('第一行\n第二行');
    expect(await input.inputValue()).toBe('');
  });

  it('uploads a file: a chip acknowledges it and the next message carries it', async () => {
    await page
      .getByTestId('chat-upload')
      .setInputFiles({ name: '报修单.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4') });
    await page.locator('[data-testid="upload-chip"][data-state="uploaded"]').filter({ hasText: '报修单.pdf' }).waitFor();
    await page.getByTestId('chat-input').fill('请处理');
    await page.getByTestId('chat-send').click();
    await page.getByTestId('msg-bot').filter({ hasText: '收到文件 报修单.pdf' }).waitFor();
    const msg = rig.host.received.at(-1)!;
    expect(msg.attachments).toMatchObject([{ filename: '报修单.pdf', mime_type: 'application/pdf' }]);
    expect(await page.getByTestId('upload-chip').count()).toBe(0);
  });

  it('a confirm.request shows a confirm-button that sends confirm.response and then disables', async () => {
    await page.getByTestId('chat-input').fill('delete it');
    await page.getByTestId('chat-input').press('Enter');
    const button = page.getByTestId('confirm-button');
    await button.waitFor();
    await button.click();
    await expect
      .poll(() =>
        rig.host.received.some((m) => m.kind === 'callback' && m.callback?.token === 'tok_browser_1' && m.callback.action === 'confirm'),
      )
      .toBe(true);
    expect(await button.isDisabled()).toBe(true);
    expect(await page.getByTestId('cancel-button').isDisabled()).toBe(true);
  });

  it('the stop button is visible while a turn runs and sends stop', async () => {
    await page.getByTestId('chat-input').fill('slow');
    await page.getByTestId('chat-input').press('Enter');
    const stop = page.getByTestId('stop-button');
    await stop.waitFor({ state: 'visible' });
    await page.getByTestId('chat-status').filter({ hasText: '处理中…' }).waitFor();
    await stop.click();
    await expect.poll(() => rig.host.received.some((m) => m.raw_input === '/stop' && m.actor.id === 'alice')).toBe(true);
  });

  it('a reload while a turn runs: the next status (typing refresh) shows the stop button again', async () => {
    await page.getByTestId('chat-input').fill('slow');
    await page.getByTestId('chat-input').press('Enter');
    await expect.poll(() => rig.host.received.filter((m) => m.raw_input === 'slow').length).toBe(2);
    const slow = rig.host.received.filter((m) => m.raw_input === 'slow').at(-1)!;
    await page.reload();
    await page.getByTestId('signed-in-name').waitFor();
    const stop = page.getByTestId('stop-button');
    expect(await stop.isVisible()).toBe(false);
    await rig.channel.typing!({ channel: 'web', account: 'default', chat_id: slow.chat.id });
    await stop.waitFor({ state: 'visible' });
    await page.getByTestId('chat-status').filter({ hasText: '处理中…' }).waitFor();
  });

  it('a hostile display_md never executes script (server rendering)', async () => {
    await page.getByTestId('chat-input').fill('hostile');
    await page.getByTestId('chat-input').press('Enter');
    await page.getByTestId('msg-bot').filter({ hasText: 'see below' }).waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('[data-testid="chat-messages"] script, [data-testid="chat-messages"] img[onerror]').count()).toBe(0);
  });

  it('reloading keeps the conversation: the replies come back as history', async () => {
    await page.reload();
    await page.getByTestId('msg-bot').filter({ hasText: 'echo: 第一行' }).waitFor();
  });

  it('markup that slips past the server renderer is removed by DOMPurify in the page', async () => {
    const p = await (await browser.newContext()).newPage();
    const token = await issueWebToken(db, 'demo', 'demo_worker');
    await p.goto(`${broken.url}/#token=${token}`);
    await p.getByTestId('signed-in-name').filter({ hasText: '维修工' }).waitFor();
    await p.getByTestId('chat-input').fill('x');
    await p.getByTestId('chat-input').press('Enter');
    const bot = p.getByTestId('msg-bot').filter({ hasText: 'bold' });
    await bot.waitFor();
    expect(await bot.locator('strong').count()).toBe(1);
    expect(await bot.locator('script, img[onerror]').count()).toBe(0);
    expect(await p.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });
});
