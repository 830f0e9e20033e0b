/**
 * Feishu inbound shapes (docs/adapter-authoring.md "Feishu"): every post element in order, top-level
 * files, unknown tags, bot mentions by any id, the `@_all` rule, interactive cards as text.
 */
import { describe, expect, it } from 'vitest';
import { normalizeMessage, type FeishuLookups, type FeishuInboundOptions } from '../../../adapters/feishu/inbound.ts';
import type { MessageEvent } from '../../../adapters/feishu/wire.ts';

const look = (botOpenId: string | null = 'ou_bot'): FeishuLookups => ({
  displayName: async () => '',
  botOpenId: async () => botOpenId,
  chatType: async () => null,
  mergedChildren: async () => [],
});
const header = { event_id: 'ev_1', event_type: 'im.message.receive_v1', create_time: '1700000000000' };

function event(type: string, content: unknown, extra: Partial<NonNullable<MessageEvent['message']>> = {}): MessageEvent {
  return {
    sender: { sender_id: { open_id: 'ou_user' }, sender_type: 'user' },
    message: { message_id: 'om_1', chat_id: 'oc_1', chat_type: 'group', message_type: type, content: JSON.stringify(content), ...extra },
  };
}

async function norm(ev: MessageEvent, opts?: FeishuInboundOptions, botOpenId?: string | null) {
  const n = await normalizeMessage(header, ev, 'default', look(botOpenId), opts);
  if (n.outcome === 'ignored' && !('message' in n)) throw new Error('ignored');
  return n;
}

describe('Feishu inbound shapes', () => {
  it('a post projects every documented element in order, files inside content and top-level files kept', async () => {
    const unknown: string[] = [];
    const n = await norm(
      event('post', {
        title: '日报',
        content: [
          [
            { tag: 'text', text: '见 ' },
            { tag: 'a', text: '链接', href: 'https://e.example/x' },
            { tag: 'emotion', emoji_type: 'SMILE' },
          ],
          [{ tag: 'code_block', language: 'Python', text: 'print(1)\n' }],
          [{ tag: 'hr' }],
          [{ tag: 'md', text: '**粗体**' }],
          [{ tag: 'file', file_key: 'file_in_content', file_name: '附件一.pdf' }],
          [{ tag: 'img', image_key: 'img_1' }],
          [{ tag: 'future_tag', text: '新元素' }, { tag: 'other_tag' }],
        ],
        files: [{ file_key: 'file_top', file_name: '附件二.xlsx' }],
      }),
      { unknownTag: (t) => unknown.push(t) },
    );
    expect(n.outcome).toBe('message');
    expect(n.message.raw_input).toBe(
      '日报\n见 链接 (https://e.example/x)[SMILE]\n```python\nprint(1)\n```\n---\n**粗体**\n新元素[other_tag]',
    );
    expect(n.message.attachments.map((a) => [a.type, a.filename, (a.platform_ref as { file_key: string }).file_key])).toEqual([
      ['file', '附件一.pdf', 'file_in_content'],
      ['image', null, 'img_1'],
      ['file', '附件二.xlsx', 'file_top'],
    ]);
    expect(unknown).toEqual(['future_tag', 'other_tag']);
  });

  it('a mention naming the bot only by user_id or union_id addresses it when the account knows those ids', async () => {
    const byUserId = event(
      'text',
      { text: '@_user_1 查一下' },
      { mentions: [{ key: '@_user_1', id: { user_id: 'bot_uid' }, name: '助手' }] },
    );
    expect((await norm(byUserId, {}, null)).message.mentioned_bot).toBe(false);
    const a = await norm(byUserId, { bot: { user_id: 'bot_uid' } }, null);
    expect(a.message).toMatchObject({ mentioned_bot: true, addressed_to_bot: true, input_without_bot_mention: '查一下' });
    const byUnion = event('text', { text: '@_user_1 查' }, { mentions: [{ key: '@_user_1', id: { union_id: 'on_bot' }, name: '助手' }] });
    expect((await norm(byUnion, { bot: { union_id: 'on_bot' } })).message.mentioned_bot).toBe(true);
    const byOpen = event('text', { text: '@_user_1 查' }, { mentions: [{ key: '@_user_1', id: { open_id: 'ou_bot' }, name: '助手' }] });
    expect((await norm(byOpen)).message.mentioned_bot).toBe(true);
  });

  it('@_all addresses the bot only when configured', async () => {
    const ev = event('text', { text: '@_all 开会了' }, { mentions: [{ key: '@_all', name: '所有人' }] });
    const off = await norm(ev);
    expect(off.message).toMatchObject({ mentioned_bot: false, addressed_to_bot: false, display_input: '@所有人 开会了' });
    const on = await norm(ev, { atAllAddressesBot: true });
    expect(on.message).toMatchObject({ mentioned_bot: true, addressed_to_bot: true, input_without_bot_mention: '开会了' });
  });

  it('an interactive card arrives as its title and text elements instead of the unsupported notice', async () => {
    const card = {
      title: '审批单',
      elements: [
        [{ tag: 'text', text: '申请人：张三' }],
        [{ tag: 'a', text: '详情', href: 'https://e.example/1' }],
        [{ tag: 'img', image_key: 'img_x' }],
        [{ tag: 'button', text: { tag: 'plain_text', content: '同意' } }],
      ],
    };
    const n = await norm(event('interactive', card));
    expect(n.outcome).toBe('message');
    expect(n.message.raw_input).toBe('审批单\n申请人：张三\n详情\n同意');
  });
});
