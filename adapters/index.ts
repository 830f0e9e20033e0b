/**
 * The channel factories of this build — the one list a new channel is added to
 * (docs/adapter-authoring.md). The web channel is built separately (it owns the chat page).
 * Each module, with its platform SDK, is imported only when the channel has an account.
 */
import type { ChannelFactory } from '../src/channel/factory.ts';
import { lazyChannel } from '../src/channel/per-account.ts';

/** Every non-web channel, in start-up order. */
export const channelFactories: ChannelFactory[] = [
  lazyChannel('telegram', 'bot_token', async () => (await import('./telegram/index.ts')).telegramChannel),
  lazyChannel('feishu', 'app_id', async () => (await import('./feishu/index.ts')).feishuChannel),
  lazyChannel('discord', 'bot_token', async () => (await import('./discord/index.ts')).discordChannel),
  lazyChannel('wecom', 'corp_id', async () => (await import('./wecom/index.ts')).wecomChannel),
  lazyChannel('dingtalk', 'app_key', async () => (await import('./dingtalk/index.ts')).dingtalkChannel),
];
