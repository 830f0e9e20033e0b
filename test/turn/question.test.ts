/**
 * Questions with choices, the pure parts (docs/messaging.md "Questions with choices"): which
 * envelopes ask, how a question is shown on button and text channels, which replies answer it.
 */
import { describe, expect, it } from 'vitest';
import { choiceListMd, matchChoice, questionOf, questionPart } from '../../src/turn/reply/question.ts';

const ASK = {
  success: false,
  need_param: 'ticket',
  options: [{ value: 'T-2', label: 'T-2 5号阀门卡死' }, 'T-1'],
  user_message: '是哪一张？',
};

describe('questions with choices', () => {
  it('a failure with one need_param and 1–10 distinct options asks; anything else does not', () => {
    expect(questionOf(ASK)).toEqual({
      param: 'ticket',
      prompt_md: '是哪一张？',
      options: [
        { value: 'T-2', label: 'T-2 5号阀门卡死' },
        { value: 'T-1', label: 'T-1' },
      ],
    });
    expect(questionOf({ ...ASK, success: true })).toBeNull();
    expect(questionOf({ ...ASK, need_param: ['a', 'b'] })).toBeNull();
    expect(questionOf({ ...ASK, options: [] })).toBeNull();
    expect(questionOf({ ...ASK, options: ['x', 'x'] })).toBeNull();
    expect(questionOf({ ...ASK, options: Array.from({ length: 11 }, (_, i) => `o${i}`) })).toBeNull();
    expect(questionOf({ success: false, need_param: 'action', actions: ['a'] })).toBeNull();
  });

  it('buttons on rich channels with buttons; a numbered list on text channels', () => {
    const asked = { token: 'ch_x', expiresAt: new Date('2026-01-01T00:00:00Z') };
    const rich = questionPart({ envelope: ASK }, asked, { display: 'rich', buttons: true }, 'zh-CN')!;
    expect(rich.md).toBe('');
    expect(rich.buttons).toMatchObject({
      kind: 'choice',
      token: 'ch_x',
      prompt_md: '是哪一张？',
      options: [
        { id: '1', label: 'T-2 5号阀门卡死' },
        { id: '2', label: 'T-1' },
      ],
    });
    const text = questionPart({ envelope: ASK }, asked, { display: 'text', buttons: true }, 'zh-CN')!;
    expect(text.buttons).toBeNull();
    expect(text.md).toBe(choiceListMd(questionOf(ASK)!, 'zh-CN'));
    // markdown (labels escaped); the text channel's plain rendering shows `1. T-2 5号阀门卡死`
    expect(text.md.split('\n')).toEqual(['是哪一张？', '', '1. T\\-2 5号阀门卡死', '2. T\\-1', '', '回复序号即可选择。']);
    expect(questionPart({ envelope: ASK }, undefined, { display: 'rich', buttons: true }, 'zh-CN')).toBeNull();
  });

  it('a reply answers with the number (also 2. / 第2个 / full-width) or the value or label; else nothing', () => {
    const options = questionOf(ASK)!.options;
    expect(matchChoice(options, '1')).toBe(0);
    expect(matchChoice(options, ' 2. ')).toBe(1);
    expect(matchChoice(options, '第2个')).toBe(1);
    expect(matchChoice(options, '２')).toBe(1);
    expect(matchChoice(options, 't-1')).toBe(1);
    expect(matchChoice(options, 'T-2 5号阀门卡死')).toBe(0);
    expect(matchChoice(options, '3')).toBeNull();
    expect(matchChoice(options, '0')).toBeNull();
    expect(matchChoice(options, '完成了，费用 500 元')).toBeNull();
    expect(matchChoice(options, '500')).toBeNull();
  });
});
