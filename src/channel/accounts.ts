/**
 * Channel accounts (CONTRACTS.md §11): the `.env` block of a channel is account `default`;
 * `skillgate.config.yaml` `accounts:` adds more (or overrides `default`). An adapter reads its
 * settings from {@link ChannelAccount.values} by the env names without the channel prefix,
 * lower-cased (`TELEGRAM_BOT_TOKEN` → `bot_token`); config entries use the same keys (plus
 * any aliases the adapter documents, e.g. Telegram `token`).
 */
import type { ConfigFile } from '../config/file.ts';

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
  return [...out.values()];
}
