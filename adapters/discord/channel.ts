/** The discord channel's declaration: listed once in adapters/index.ts (docs/adapter-authoring.md). */
import type { ChannelDeclaration } from '../../src/channel/index.ts';

export const discordDeclaration: ChannelDeclaration = {
  name: 'discord',
  env: ['DISCORD_BOT_TOKEN'],
  accountKey: 'bot_token',
  load: async () => (await import('./index.ts')).discordChannel,
};
