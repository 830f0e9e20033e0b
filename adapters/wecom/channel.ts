/** The wecom channel's declaration: listed once in adapters/index.ts (docs/adapter-authoring.md). */
import type { ChannelDeclaration } from '../../src/channel/index.ts';

export const wecomDeclaration: ChannelDeclaration = {
  name: 'wecom',
  env: ['WECOM_CORP_ID', 'WECOM_SECRET'],
  accountKey: 'corp_id',
  load: async () => (await import('./index.ts')).wecomChannel,
};
