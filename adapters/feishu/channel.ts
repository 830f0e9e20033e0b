/** The feishu channel's declaration: listed once in adapters/index.ts (docs/adapter-authoring.md). */
import type { ChannelDeclaration } from '../../src/channel/index.ts';

export const feishuDeclaration: ChannelDeclaration = {
  name: 'feishu',
  env: ['FEISHU_APP_ID', 'FEISHU_APP_SECRET'],
  accountKey: 'app_id',
  load: async () => (await import('./index.ts')).feishuChannel,
};
