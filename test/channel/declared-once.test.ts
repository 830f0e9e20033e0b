/**
 * A channel declares itself once (docs/adapter-authoring.md "Declaring a channel"): a fictional
 * channel `echo` — one folder (test/fixtures/adapters/echo/) and one line in the list — is
 * known to the `.env` settings, the config-file check, the start-up factories, the directory
 * import and the console.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { channelDeclarations } from '../../adapters/index.ts';
import { channelNames, declaredFactory, directoryChannels, envChannels } from '../../src/channel/declaration.ts';
import type { ChannelFactoryContext } from '../../src/channel/factory.ts';
import { ConfigError } from '../../src/config/errors.ts';
import { parseConfigFile } from '../../src/config/file.ts';
import { createLogger } from '../../src/log/logger.ts';
import { echoDeclaration } from '../fixtures/adapters/echo/channel.ts';
import type { EchoAdapter } from '../fixtures/adapters/echo/index.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { startConsoleRig, type ConsoleRig } from '../console/rig.ts';

/** The build's list with the one line that adds echo. */
const withEcho = [...channelDeclarations, echoDeclaration];

const defaults = { orgId: 'demo', roleId: 'default' };
const echoAccount = 'accounts:\n  - channel: echo\n    id: e1\n    token: tok-1\n';

it('.env settings: echo is on when its declared variables are set, and unknown without its line', () => {
  expect(envChannels({ ECHO_TOKEN: 'x' }, withEcho)).toEqual(['web', 'echo']);
  expect(envChannels({ ECHO_TOKEN: ' ' }, withEcho)).toEqual(['web']);
  expect(envChannels({ ECHO_TOKEN: 'x' }, channelDeclarations)).toEqual(['web']);
});

it('config file: an echo account is accepted with its line and refused, naming the key, without it', () => {
  const config = parseConfigFile(echoAccount, { ...defaults, channels: channelNames(withEcho) }, {});
  expect(config.accounts).toEqual([{ channel: 'echo', id: 'e1', token: 'tok-1', role: 'default' }]);
  let err: unknown;
  try {
    parseConfigFile(echoAccount, { ...defaults, channels: channelNames(channelDeclarations) }, {});
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ConfigError);
  expect((err as ConfigError).key).toBe('accounts[0].channel');
});

it('start-up: the declared factory builds one echo adapter per account, none without one', async () => {
  const factory = declaredFactory(echoDeclaration);
  const config = parseConfigFile(echoAccount, { ...defaults, channels: channelNames(withEcho) }, {});
  const ctx = { log: createLogger({ level: 'silent' }), env: {}, config, defaultRoleId: 'default' } as unknown as ChannelFactoryContext;
  const adapters = (await factory.create(ctx)) as EchoAdapter[];
  expect(adapters.map((a) => `${a.channel}:${a.account}`)).toEqual(['echo:e1']);
  expect(await factory.create({ ...ctx, config: { ...config, accounts: [] } })).toEqual([]);
});

describeEachEngine('directory import and console know echo', (db) => {
  let rig: ConsoleRig;
  beforeAll(async () => {
    rig = await startConsoleRig(db(), { deps: { channels: directoryChannels(withEcho) } });
  });
  afterAll(async () => rig?.close());

  it('a CSV with an echo column imported through the console gives the contact its echo id', async () => {
    const csv = 'contact_key,name,echo,telegram\nemma,Emma,echo-7,tg-7\n';
    const imported = await rig.call('directory/import', { method: 'POST', auth: 'token', body: { format: 'csv', data: csv } });
    expect(imported.status).toBe(200);
    expect(imported.json.report.errors).toEqual([]);
    expect(imported.json.report.warnings).toEqual([]);
    const listed = await rig.call('directory/contacts?q=emma', { auth: 'token' });
    const emma = listed.json.contacts.find((c: { contact_key: string }) => c.contact_key === 'emma');
    expect(emma.channel_ids).toEqual({ echo: ['echo-7'], telegram: ['tg-7'] });
  });
});
