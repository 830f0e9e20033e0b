import { describe, expect, it } from 'vitest';
import { perAccountChannel } from '../../src/channel/per-account.ts';
import type { ChannelAdapter } from '../../src/channel/types.ts';
import { ConfigError } from '../../src/config/errors.ts';
import { captureLog } from '../inbox/helpers.ts';

const adapterOf = (account: string) => ({ channel: 'wecom', account }) as unknown as ChannelAdapter;

describe('perAccountChannel: the factory shape of every platform channel', () => {
  it('builds one adapter per account and reports each once, after all are built', async () => {
    const cap = captureLog();
    const factory = perAccountChannel('wecom', 'corp_id', (a) => ({ adapter: adapterOf(a.id), report: { webhook: `/w/${a.id}` } }));
    const config = { accounts: [{ channel: 'wecom', id: 'b', role: 'ops' }] };
    const got = await factory.create({ log: cap.log, env: { WECOM_CORP_ID: 'c' }, config, defaultRoleId: 'default' } as never);
    expect(got.map((a) => a.account)).toEqual(['default', 'b']);
    expect(cap.lines().map((l) => [l.msg, l.channel, l.account, l.source, l.webhook])).toEqual([
      ['wecom account default on', 'wecom', 'default', 'env', '/w/default'],
      ['wecom account b on', 'wecom', 'b', 'config', '/w/b'],
    ]);
  });

  it('a misconfigured account fails the factory and nothing is reported', async () => {
    const cap = captureLog();
    const factory = perAccountChannel('wecom', 'corp_id', (a) => {
      if (a.id === 'b') throw new ConfigError('bad', 'accounts[b].corp_id');
      return { adapter: adapterOf(a.id), report: {} };
    });
    const config = { accounts: [{ channel: 'wecom', id: 'b', role: 'ops' }] };
    await expect(
      factory.create({ log: cap.log, env: { WECOM_CORP_ID: 'c' }, config, defaultRoleId: 'default' } as never),
    ).rejects.toBeInstanceOf(ConfigError);
    expect(cap.lines()).toEqual([]);
  });
});
