/**
 * One datatable `query` result reaches Telegram, Feishu and WeCom as a table in each dialect
 * (docs/results.md "How a result is shown"): the envelope's display_md (src/datatable/call/display.ts)
 * composed for each adapter's capabilities, sent by the real adapter to its loopback fake:
 * Telegram HTML `<pre>` monospace, a Feishu card markdown table, WeCom plain aligned text — each
 * within the platform's limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakePlatform, type FakePlatform } from '../../adapters/contract/index.ts';
import { createFeishuAdapter } from '../../adapters/feishu/index.ts';
import { TelegramAdapter } from '../../adapters/telegram/index.ts';
import { createWecomAdapter } from '../../adapters/wecom/index.ts';
import { measure } from '../../src/channel/chunk.ts';
import type { ChannelAdapter, OutboundTarget } from '../../src/channel/types.ts';
import { withDisplay } from '../../src/datatable/call/display.ts';
import type { TableMeta } from '../../src/datatable/model/types.ts';
import type { Db, Queryable } from '../../src/store/db.ts';
import { createLogger } from '../../src/log/logger.ts';
import { composeReply } from '../../src/turn/reply/index.ts';
import { cardMarkdown, contentOf, installOpenApi } from './feishu/open-api.ts';
import { installTelegram, telegramBody, TOKEN, SECRET } from './telegram/fake-telegram.ts';
import { installWecomApi, WECOM } from './wecom/fake-wecom.ts';

const log = createLogger({ level: 'silent', pretty: false });
// The organisation's clock for this file (docs/results.md "Times"); set before the envelope is built.
process.env.SKILLGATE_TIMEZONE = 'Asia/Shanghai';
const TABLE: TableMeta = {
  id: '9fd52815-9c30-4507-ab9a-a339576f4d7c',
  orgId: 'demo',
  schema: 'org_data_demo',
  title: '工单',
  fields: [
    { title: '描述', uidt: '文本', required: false, unique: false, options: [], precision: null, scale: null, position: 0 },
    { title: '费用', uidt: '数字', required: false, unique: false, options: [], precision: 18, scale: 2, position: 1 },
    {
      title: '状态',
      uidt: '单选',
      required: false,
      unique: false,
      options: ['待处理', '已完成'],
      precision: null,
      scale: null,
      position: 2,
    },
  ],
};
const QUERY = withDisplay(
  'query',
  {
    success: true,
    list: [
      { id: 3, 描述: '门锁', 费用: null, 状态: '待处理', created_at: '2026-12-02T06:34:59.313Z' },
      { id: 2, 描述: '灯坏了', 费用: 35.5, 状态: '已完成', created_at: '2026-12-02T06:34:59.313Z' },
      { id: 1, 描述: '3号泵漏水', 费用: 1200, 状态: '待处理', created_at: '2026-12-02T06:34:59.313Z' },
    ],
    pageInfo: { totalRows: 3, limit: 100, offset: 0, hasMore: false },
    artifacts: [],
  },
  { table_name: '工单' },
  TABLE,
  'zh-CN',
);

function send(adapter: ChannelAdapter, target: OutboundTarget) {
  const messages = composeReply({
    plannerText: '',
    invocations: [{ tool: 'datatable', args: { action: 'query', table_name: '工单' }, envelope: QUERY }],
    capabilities: adapter.capabilities,
    lang: 'zh-CN',
  });
  return Promise.all(messages.map((m) => adapter.send(target, m)));
}

/** The aligned rows of a monospace table: every row has its cells at the same columns. */
function expectAligned(text: string): void {
  const lines = text.split('\n').filter((l) => /门锁|灯坏了|3号泵漏水|描述/.test(l));
  expect(lines).toHaveLength(4);
  const col = (l: string, word: string) =>
    measure(l.slice(0, l.indexOf(word)), 'utf16') + [...l.slice(0, l.indexOf(word))].filter((c) => /[\u4e00-\u9fff]/u.test(c)).length;
  expect(new Set(lines.slice(1).map((l) => col(l, l.includes('待处理') ? '待处理' : '已完成'))).size).toBe(1);
}

describe('a query result as a table in each dialect', () => {
  let fake: FakePlatform;
  beforeAll(async () => {
    fake = await startFakePlatform();
    installTelegram(fake);
    installOpenApi(fake);
    installWecomApi(fake);
  });
  afterAll(async () => {
    delete process.env.SKILLGATE_TIMEZONE;
    await fake.close();
  });

  it('the display_md is a markdown table: fields first, ids and timestamps last, money and time formatted', () => {
    expect(QUERY.display_md).toBe(
      '**工单**（共 3 条）\n\n| 描述 | 费用 | 状态 | id | created\\_at |\n| --- | --: | --- | --: | --- |\n' +
        '| 门锁 |  | 待处理 | 3 | 2026\\-12\\-02 14:34:59 |\n| 灯坏了 | 35\\.50 | 已完成 | 2 | 2026\\-12\\-02 14:34:59 |\n| 3号泵漏水 | 1,200\\.00 | 待处理 | 1 | 2026\\-12\\-02 14:34:59 |',
    );
  });

  it('Telegram: HTML with the table in <pre> monospace, within 4096 characters', async () => {
    fake.reset();
    const db: Queryable = { query: () => Promise.reject(new Error('no database')) };
    const adapter = new TelegramAdapter(
      { account: 'default', token: TOKEN, webhookSecret: SECRET, mode: 'webhook', apiRoot: fake.baseUrl, maxRetryDelayS: 0 },
      { db, log },
    );
    const results = await send(adapter, { channel: 'telegram', account: 'default', chat_id: '10000001' });
    expect(results.every((r) => r.ok)).toBe(true);
    const [call] = fake.calls(/\/sendMessage$/);
    const b = telegramBody(call!);
    expect(b.parse_mode).toBe('HTML');
    const text = String(b.text);
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text.startsWith('<b>工单</b>（共 3 条）\n\n<pre>')).toBe(true);
    const pre = /<pre>([\s\S]*)<\/pre>/.exec(text)![1]!;
    expect(pre).toContain('1,200.00');
    expect(pre).not.toMatch(/^\|/m); // aligned columns, not markdown pipes
    expectAligned(pre);
  });

  it('Feishu: an interactive card whose markdown holds a native table', async () => {
    fake.reset();
    const adapter = createFeishuAdapter({
      account: 'default',
      appId: 'cli_x',
      appSecret: 's',
      verificationToken: 'v',
      domain: fake.baseUrl,
      mode: 'webhook',
      log,
    });
    const results = await send(adapter, {
      channel: 'feishu',
      account: 'default',
      chat_id: 'oc_test_group_0000000000000000001',
      chat_type: 'group',
    });
    expect(results.every((r) => r.ok)).toBe(true);
    const [call] = fake.calls(/^\/open-apis\/im\/v1\/messages$/, 'POST');
    const c = contentOf(call!)!;
    expect(c.msg_type).toBe('interactive');
    const md = cardMarkdown(c.content);
    expect(md).toContain('| 描述 | 费用 | 状态 | id | created\\_at |');
    expect(md).toContain('| 3号泵漏水 | 1,200.00 | 待处理 | 1 | 2026-12-02 14:34:59 |');
    expect(Buffer.byteLength(JSON.stringify(c.content))).toBeLessThan(30_000);
  });

  it('WeCom: plain aligned text, within 2048 bytes', async () => {
    fake.reset();
    // No button payloads are stored for a reply without choices: a database that refuses every query.
    const db = { query: () => Promise.reject(new Error('no database')) } as unknown as Db;
    const adapter = createWecomAdapter({
      db,
      account: 'default',
      corpId: WECOM.corpId,
      agentId: WECOM.agentId,
      secret: WECOM.secret,
      token: WECOM.token,
      aesKey: WECOM.aesKey,
      apiRoot: fake.baseUrl,
      log,
    });
    const results = await send(adapter, { channel: 'wecom', account: 'default', chat_id: 'zhangsan' });
    expect(results.every((r) => r.ok)).toBe(true);
    const [call] = fake.calls(/\/cgi-bin\/message\/send$/, 'POST');
    const b = call!.json as { msgtype: string; text: { content: string } };
    expect(b.msgtype).toBe('text');
    const text = b.text.content;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2048);
    expect(text.startsWith('工单（共 3 条）\n\n')).toBe(true);
    expect(text).not.toMatch(/^\||\*\*|\\/m); // no markdown left
    expect(text).toContain('1,200.00');
    expectAligned(text);
  });
});
