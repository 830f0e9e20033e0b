/**
 * Channel accounts (docs/configuration.md): the `.env` block of a channel is account `default`;
 * `skillgate.config.yaml` `accounts:` adds more (or overrides `default`). An adapter reads its
 * settings from {@link ChannelAccount.values} by the env names without the channel prefix,
 * lower-cased (`TELEGRAM_BOT_TOKEN` → `bot_token`); config entries use the same keys (plus
 * any aliases the adapter documents, e.g. Telegram `token`).
 */
import { ConfigError } from '../config/errors.ts';
import type { ConfigFile } from '../config/file.ts';
import type { ChannelFactoryContext } from './factory.ts';
import { isKnownSecretField, processSecrets } from '../log/secret-values.ts';

/** One configured account of a channel. */
export interface ChannelAccount {
  channel: string;
  /** `default` for the `.env` block. */
  id: string;
  /** The role its messages run under. */
  role: string;
  /** Settings by key (`bot_token`, `webhook_secret`, `api_root`, `mode`, …); strings only. */
  values: Record<string, string>;
  /** Where it came from, for the start-up report. */
  source: 'env' | 'config';
}

/**
 * The accounts of `channel`. The env block counts only when `requiredEnv` (e.g.
 * `TELEGRAM_BOT_TOKEN`) is set and non-empty; config entries always count.
 * @param prefix env prefix with the trailing underscore, e.g. `TELEGRAM_`.
 */
export function accountsFor(
  channel: string,
  prefix: string,
  requiredEnv: string,
  env: NodeJS.ProcessEnv,
  config: Pick<ConfigFile, 'accounts'>,
  defaultRole: string,
): ChannelAccount[] {
  const out = new Map<string, ChannelAccount>();
  if ((env[requiredEnv] ?? '').trim() !== '') {
    const values: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) {
      if (k.startsWith(prefix) && v !== undefined && v !== '') values[k.slice(prefix.length).toLowerCase()] = v;
    }
    out.set('default', { channel, id: 'default', role: defaultRole, values, source: 'env' });
  }
  for (const a of config.accounts) {
    if (a.channel !== channel) continue;
    const values: Record<string, string> = {};
    for (const [k, v] of Object.entries(a)) {
      if (k === 'channel' || k === 'id' || k === 'role' || v === undefined || v === null) continue;
      values[k] = typeof v === 'string' ? v : JSON.stringify(v);
    }
    out.set(a.id, { channel, id: a.id, role: a.role, values, source: 'config' });
  }
  const accounts = [...out.values()];
  // Their tokens and app secrets are scrubbed by value wherever text leaves (src/log/secret-values.ts).
  for (const a of accounts) for (const [k, v] of Object.entries(a.values)) if (isKnownSecretField(k)) processSecrets().add(v);
  return accounts;
}

/**
 * Where the operator wrote setting `key` of account `a`, for error messages: the env variable
 * (`TELEGRAM_BOT_TOKEN`) for the `.env` account, else the config path (`accounts[ops].bot_token`).
 * docs/configuration.md (a ConfigError names the variable or key).
 */
export function settingName(a: ChannelAccount, key: string): string {
  return a.source === 'env' ? `${a.channel.toUpperCase()}_${key.toUpperCase()}` : `accounts[${a.id}].${key}`;
}

/**
 * The trimmed value of setting `key`, else of the first alias that is set (e.g. Telegram's
 * `token` for `bot_token`); `''` when none is set.
 */
export function setting(a: ChannelAccount, key: string, aliases: readonly string[] = []): string {
  for (const k of [key, ...aliases]) {
    const v = a.values[k];
    if (v !== undefined) return v.trim();
  }
  return '';
}

/**
 * A ConfigError about setting `key` of account `a`: message `<channel> account <id>: <problem>`,
 * `key` = {@link settingName}. Write `problem` with {@link settingName} when it should name the key.
 */
export function settingError(a: ChannelAccount, key: string, problem: string): ConfigError {
  return new ConfigError(`${a.channel} account ${a.id}: ${problem}`, settingName(a, key));
}

/**
 * The trimmed, non-empty value of setting `key` (or an alias, see {@link setting}).
 * @param problem the error text; default `<setting name> is required`.
 * @throws ConfigError naming the key when it is missing or blank.
 */
export function requireSetting(a: ChannelAccount, key: string, opts: { aliases?: readonly string[]; problem?: string } = {}): string {
  const v = setting(a, key, opts.aliases);
  if (v === '') throw settingError(a, key, opts.problem ?? `${settingName(a, key)} is required`);
  return v;
}

/** An API root setting without trailing `/`, or `fallback` when unset or blank. */
export function apiRootSetting(a: ChannelAccount, key: string, fallback: string): string {
  return setting(a, key).replace(/\/+$/, '') || fallback;
}

/** A non-negative number setting (e.g. `max_retry_delay_s`); `fallback` when unset, not a number or negative. */
export function numberSetting(a: ChannelAccount, key: string, fallback: number): number {
  const raw = setting(a, key);
  const n = raw === '' ? fallback : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

/**
 * The accounts of `channel` for a channel factory: {@link accountsFor} with the env prefix
 * `<CHANNEL>_` and the factory context's env, config and default role.
 * @param requiredKey the setting whose env variable turns the `.env` account on (`bot_token` → `TELEGRAM_BOT_TOKEN`).
 */
export function channelAccounts(
  ctx: Pick<ChannelFactoryContext, 'env' | 'config' | 'defaultRoleId'>,
  channel: string,
  requiredKey: string,
): ChannelAccount[] {
  const prefix = `${channel.toUpperCase()}_`;
  return accountsFor(channel, prefix, `${prefix}${requiredKey.toUpperCase()}`, ctx.env, ctx.config, ctx.defaultRoleId);
}

/** The webhook route of an account (docs/adapter-authoring.md): `/webhooks/<channel>` for `default`, else `/webhooks/<channel>/<account>`. */
export function webhookPath(channel: string, account: string): string {
  return `/webhooks/${channel}${account === 'default' ? '' : `/${account}`}`;
}
