/**
 * The channel factory shape every platform channel shares (docs/configuration.md): one adapter per
 * configured account, each reported once at start-up. Adapters supply only how one account
 * becomes an adapter and what to report about it.
 */
import { channelAccounts, type ChannelAccount } from './accounts.ts';
import type { ChannelFactory, ChannelFactoryContext } from './factory.ts';
import type { ChannelAdapter } from './types.ts';

/** One account built: the adapter, the log fields about it (never secrets), the log message. */
export interface BuiltAccount {
  adapter: ChannelAdapter;
  /** Extra log fields (mode, api root, webhook route …); `channel`, `account`, `source` are added. */
  report: Record<string, unknown>;
  /** Default `<channel> account <id> on`. */
  msg?: string;
}

/**
 * A {@link ChannelFactory} that builds every account of `channel` (the `.env` block counts when
 * `<CHANNEL>_<requiredKey>` is set; see {@link channelAccounts}), then logs one line per account.
 * Off (no adapters) when no account is configured.
 * @throws ConfigError from `build` (no account is reported when one of them is misconfigured).
 */
export function perAccountChannel(
  channel: string,
  requiredKey: string,
  build: (a: ChannelAccount, ctx: ChannelFactoryContext) => BuiltAccount,
): ChannelFactory {
  return {
    channel,
    async create(ctx: ChannelFactoryContext) {
      const built = channelAccounts(ctx, channel, requiredKey).map((a) => ({ a, ...build(a, ctx) }));
      for (const b of built)
        ctx.log.info({ channel, account: b.a.id, source: b.a.source, ...b.report }, b.msg ?? `${channel} account ${b.a.id} on`);
      return built.map((b) => b.adapter);
    },
  };
}

/**
 * A channel whose module (and its platform SDK) is imported only when one of its accounts is
 * configured: start-up and memory pay nothing for a channel that is off (docs/pipeline.md
 * "Start-up").
 * @param load imports the channel module and returns its full factory.
 */
export function lazyChannel(channel: string, requiredKey: string, load: () => Promise<ChannelFactory>): ChannelFactory {
  return {
    channel,
    async create(ctx: ChannelFactoryContext) {
      if (channelAccounts(ctx, channel, requiredKey).length === 0) return [];
      return (await load()).create(ctx);
    },
  };
}
