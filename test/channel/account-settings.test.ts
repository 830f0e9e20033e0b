import { describe, expect, it } from 'vitest';
import {
  apiRootSetting,
  channelAccounts,
  numberSetting,
  requireSetting,
  setting,
  settingError,
  settingName,
  webhookPath,
  type ChannelAccount,
} from '../../src/channel/accounts.ts';
import { ConfigError } from '../../src/config/errors.ts';

const env = (values: Record<string, string>): ChannelAccount => ({ channel: 'telegram', id: 'default', role: 'r', source: 'env', values });
const cfg = (values: Record<string, string>): ChannelAccount => ({ channel: 'dingtalk', id: 'ops', role: 'r', source: 'config', values });

describe('channel account settings', () => {
  it('names a setting by its env variable or its config path', () => {
    expect(settingName(env({}), 'bot_token')).toBe('TELEGRAM_BOT_TOKEN');
    expect(settingName(cfg({}), 'app_key')).toBe('accounts[ops].app_key');
  });

  it('reads the key before its aliases, trimmed; blank when none is set', () => {
    expect(setting(env({ token: ' t ' }), 'bot_token', ['token'])).toBe('t');
    expect(setting(env({ bot_token: 'a', token: 'b' }), 'bot_token', ['token'])).toBe('a');
    expect(setting(env({}), 'bot_token', ['token'])).toBe('');
  });

  it('a missing required setting is a ConfigError naming the key', () => {
    const e = (() => {
      try {
        requireSetting(cfg({ app_key: '  ' }), 'app_key');
      } catch (err) {
        return err as ConfigError;
      }
      throw new Error('no error');
    })();
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.key).toBe('accounts[ops].app_key');
    expect(e.message).toBe('dingtalk account ops: accounts[ops].app_key is required');
    expect(() => requireSetting(env({}), 'bot_token', { problem: 'the bot token is missing' })).toThrow(
      'telegram account default: the bot token is missing',
    );
    expect(settingError(env({}), 'mode', 'bad').key).toBe('TELEGRAM_MODE');
  });

  it('api roots lose trailing slashes; numbers fall back when absent, not numbers or negative', () => {
    expect(apiRootSetting(env({ api_root: 'http://127.0.0.1:9/x//' }), 'api_root', 'd')).toBe('http://127.0.0.1:9/x');
    expect(apiRootSetting(env({}), 'api_root', 'd')).toBe('d');
    expect(numberSetting(env({ n: '2.5' }), 'n', 5)).toBe(2.5);
    expect(numberSetting(env({ n: 'x' }), 'n', 5)).toBe(5);
    expect(numberSetting(env({ n: '-1' }), 'n', 5)).toBe(5);
    expect(numberSetting(env({}), 'n', 5)).toBe(5);
  });
});

describe('channel factory accounts and webhook routes', () => {
  it('the .env block counts when <CHANNEL>_<required key> is set; config accounts always', () => {
    const ctx = {
      env: { WECOM_CORP_ID: 'c', WECOM_SECRET: 's' },
      config: { accounts: [{ channel: 'wecom', id: 'b', role: 'ops', corp_id: 'd' }] },
      defaultRoleId: 'default',
    };
    const got = channelAccounts(ctx as never, 'wecom', 'corp_id');
    expect(got.map((a) => [a.id, a.role, a.source, a.values.corp_id])).toEqual([
      ['default', 'default', 'env', 'c'],
      ['b', 'ops', 'config', 'd'],
    ]);
    expect(got[0]!.values.secret).toBe('s');
    expect(channelAccounts({ ...ctx, env: { WECOM_SECRET: 's' } } as never, 'wecom', 'corp_id').map((a) => a.id)).toEqual(['b']);
  });

  it('webhook routes: the default account has none of its own segment', () => {
    expect(webhookPath('feishu', 'default')).toBe('/webhooks/feishu');
    expect(webhookPath('dingtalk', 'ops')).toBe('/webhooks/dingtalk/ops');
  });
});
