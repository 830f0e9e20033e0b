/**
 * The Feishu channel factory (docs/configuration.md: `.env` block = account `default`, config-file
 * accounts, off when unconfigured, start-up report, mode default) and the long-connection
 * event mapping (the SDK's flattened handler data → the same normalized message as a webhook).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakePlatform, type FakePlatform } from '../../../adapters/contract/index.ts';
import { feishuChannel, type FeishuAdapter } from '../../../adapters/feishu/index.ts';
import { createLookups, createFeishuClient } from '../../../adapters/feishu/api.ts';
import { unflatten, wsHandlers } from '../../../adapters/feishu/transport-ws.ts';
import type { ChannelFactoryContext } from '../../../src/channel/factory.ts';
import { ConfigError } from '../../../src/config/errors.ts';
import { captureLog } from '../../inbox/helpers.ts';
import { installOpenApi } from './open-api.ts';
import { EXPECTED, SECRETS, fixture, plainRequest, recordingHost } from './helpers.ts';

let fake: FakePlatform;
beforeAll(async () => {
  fake = await startFakePlatform();
  installOpenApi(fake);
});
afterAll(async () => {
  await fake.close();
});

function ctx(
  env: Record<string, string>,
  accounts: Record<string, unknown>[] = [],
): { c: ChannelFactoryContext; lines: () => Record<string, unknown>[] } {
  const { log, lines } = captureLog();
  const c = {
    db: undefined as never,
    log,
    env,
    config: { accounts } as never,
    defaultRoleId: 'default',
    dataDir: '/tmp',
    secretKey: Buffer.alloc(32),
  } as ChannelFactoryContext;
  return { c, lines };
}

describe('feishuChannel factory', () => {
  it('is off without FEISHU_APP_ID', async () => {
    expect(await feishuChannel.create(ctx({ FEISHU_APP_SECRET: 's' }).c)).toEqual([]);
  });

  it('the .env block is account default; mode ws without token/key, webhook with one; config accounts added; start-up report names each', async () => {
    const { c, lines } = ctx({ FEISHU_APP_ID: 'cli_a', FEISHU_APP_SECRET: 's', FEISHU_DOMAIN: fake.baseUrl }, [
      { channel: 'feishu', id: 'ops', role: 'default', app_id: 'cli_b', app_secret: 's2', verification_token: 'vt', domain: 'lark' },
    ]);
    const adapters = (await feishuChannel.create(c)) as FeishuAdapter[];
    expect(adapters.map((a) => [a.account, a.mode])).toEqual([
      ['default', 'ws'],
      ['ops', 'webhook'],
    ]);
    const report = lines().filter((l) => l.channel === 'feishu' && typeof l.msg === 'string' && String(l.msg).includes(' on '));
    expect(report.map((l) => l.account)).toEqual(['default', 'ops']);
    expect(JSON.stringify(lines())).not.toContain('s2'); // no secret in the logs
  });

  it('refuses inconsistent accounts with the variable named', async () => {
    await expect(feishuChannel.create(ctx({ FEISHU_APP_ID: 'cli_a' }).c)).rejects.toMatchObject({ key: 'FEISHU_APP_SECRET' });
    await expect(
      feishuChannel.create(ctx({ FEISHU_APP_ID: 'a', FEISHU_APP_SECRET: 's', FEISHU_MODE: 'webhook' }).c),
    ).rejects.toBeInstanceOf(ConfigError);
    await expect(feishuChannel.create(ctx({ FEISHU_APP_ID: 'a', FEISHU_APP_SECRET: 's', FEISHU_MODE: 'poll' }).c)).rejects.toMatchObject({
      key: 'FEISHU_MODE',
    });
  });

  it('FEISHU_DOMAIN points the SDK at any base URL (webhook account answers through the fake)', async () => {
    const { c } = ctx({
      FEISHU_APP_ID: 'cli_a',
      FEISHU_APP_SECRET: 's',
      FEISHU_DOMAIN: fake.baseUrl,
      FEISHU_VERIFICATION_TOKEN: SECRETS.verification_token,
    });
    const [a] = (await feishuChannel.create(c)) as FeishuAdapter[];
    fake.reset();
    const host = recordingHost();
    expect((await a!.handleWebhook(plainRequest(fixture('p2p_text.json')), host)).status).toBe(200);
    expect(host.received[0]!.actor.display_name).toBe('Test User');
    expect(fake.calls('/open-apis/contact/v3/users/:id')).toHaveLength(1);
  });
});

describe('long connection (WSClient) event mapping', () => {
  /** The SDK hands handlers `{schema, ...header, ...event}` (library-facts §2). */
  function flattened(name: string): Record<string, unknown> {
    const f = JSON.parse(fixture(name).toString()) as { schema: string; header: Record<string, unknown>; event: Record<string, unknown> };
    return { schema: f.schema, ...f.header, ...f.event };
  }

  it('unflatten restores header and event', () => {
    const { header, event } = unflatten(flattened('p2p_text.json'), 'im.message.receive_v1');
    expect(header).toMatchObject({ event_id: 'test_evt_0000000000000000000000001', event_type: 'im.message.receive_v1' });
    expect(Object.keys(event).sort()).toEqual(['message', 'sender']);
  });

  it('messages and card callbacks through the ws handlers equal the webhook normalization; redelivery dropped', async () => {
    const lookups = createLookups(createFeishuClient({ appId: 'a', appSecret: 's', domain: fake.baseUrl, log: captureLog().log }));
    const host = recordingHost();
    const h = wsHandlers({ account: 'default', look: lookups, log: captureLog().log }, host);
    await h['im.message.receive_v1'](flattened('group_text_at_bot.json'));
    await h['im.message.receive_v1'](flattened('group_text_at_bot.json'));
    const toast = await h['card.action.trigger'](flattened('card_action_confirm.json'));
    await h['im.message.receive_v1'](flattened('sender_app_ignored.json'));
    expect(host.received).toHaveLength(2);
    const exp = EXPECTED.cases['group_text_at_bot.json']!;
    expect(host.received[0]).toMatchObject({
      dedupe_key: exp.dedupe_key,
      display_input: exp.display_input,
      input_without_bot_mention: exp.input_without_bot_mention,
      mentioned_bot: true,
    });
    expect(host.received[1]).toMatchObject({ kind: 'callback', callback: { action: 'confirm', token: 'tok_test_7f3a9c' } });
    expect(toast).toMatchObject({ toast: { type: 'success' } });
  });
});

describe('lookups (contact API, cached)', () => {
  it('a name is fetched once and cached; a hanging contact API yields "" instead of blocking the webhook', async () => {
    const client = createFeishuClient({ appId: 'a', appSecret: 's', domain: fake.baseUrl, log: captureLog().log });
    const look = createLookups(client, { timeoutMs: 10_000 });
    fake.reset();
    expect(await look.displayName('ou_test_admin_00000000000000000002')).toBe('Test Admin');
    expect(await look.displayName('ou_test_admin_00000000000000000002')).toBe('Test Admin');
    expect(fake.calls('/open-apis/contact/v3/users/:id')).toHaveLength(1);
    fake.route('GET', '/open-apis/contact/v3/users/ou_hangs', () => new Promise(() => undefined));
    // Only the time limit can settle this lookup (the fake never answers).
    expect(await createLookups(client, { timeoutMs: 50 }).displayName('ou_hangs')).toBe('');
    expect(await look.botOpenId()).toBe(SECRETS.bot_open_id);
    expect(await look.chatType('oc_test_p2p_000000000000000000001')).toBe('direct');
  });
});
