/**
 * The channels of this build — the one list a new channel is added to (docs/adapter-authoring.md).
 * Each entry is the channel's own declaration (`adapters/<channel>/channel.ts`); its module, with
 * its platform SDK, is imported only when the channel has an account; the gateway makes their
 * factories (`declaredFactory`). A plain list: nothing of src/ is loaded at run time by importing
 * it, so a CLI command that only needs the channel names stays small. The web channel is built
 * separately (it owns the chat page).
 */
import type { ChannelDeclaration } from '../src/channel/index.ts';
import { dingtalkDeclaration } from './dingtalk/channel.ts';
import { discordDeclaration } from './discord/channel.ts';
import { feishuDeclaration } from './feishu/channel.ts';
import { telegramDeclaration } from './telegram/channel.ts';
import { wecomDeclaration } from './wecom/channel.ts';

/** Every non-web channel, in start-up order. */
export const channelDeclarations: readonly ChannelDeclaration[] = [
  telegramDeclaration,
  feishuDeclaration,
  discordDeclaration,
  wecomDeclaration,
  dingtalkDeclaration,
];
