/** The dingtalk channel's declaration: listed once in adapters/index.ts (docs/adapter-authoring.md). */
import type { ChannelDeclaration } from '../../src/channel/index.ts';

export const dingtalkDeclaration: ChannelDeclaration = {
  name: 'dingtalk',
  env: ['DINGTALK_APP_KEY', 'DINGTALK_APP_SECRET'],
  accountKey: 'app_key',
  load: async () => (await import('./index.ts')).dingtalkChannel,
};
