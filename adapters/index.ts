/**
 * The channel factories of this build — the one list a new channel is added to
 * (docs/adapter-authoring.md). The web channel is built separately (it owns the chat page).
 */
import type { ChannelFactory } from '../src/channel/factory.ts';
import { feishuChannel } from './feishu/index.ts';
import { telegramChannel } from './telegram/index.ts';
import { dingtalkChannel } from './dingtalk/index.ts';
import { discordChannel } from './discord/index.ts';
import { wecomChannel } from './wecom/index.ts';

/** Every non-web channel, in start-up order. */
export const channelFactories: ChannelFactory[] = [telegramChannel, feishuChannel, discordChannel, wecomChannel, dingtalkChannel];
