/** The telegram channel's declaration: listed once in adapters/index.ts (docs/adapter-authoring.md). */
import type { ChannelDeclaration } from '../../src/channel/index.ts';

export const telegramDeclaration: ChannelDeclaration = {
  name: 'telegram',
  env: ['TELEGRAM_BOT_TOKEN'],
  accountKey: 'bot_token',
  load: async () => (await import('./index.ts')).telegramChannel,
};
