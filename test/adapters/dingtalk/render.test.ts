/**
 * The DingTalk markdown dialect (adapters/dingtalk/render.ts;
 * docs/results.md#5-how-a-result-is-shown D-22): the documented subset, tables with the separator
 * row, escaping of user text, line breaks DingTalk keeps, and the required title.
 */
import { describe, expect, it } from 'vitest';
import { DINGTALK_TITLE_MAX, dingtalkTitle, escapeDingtalkMd, renderDingtalkMd } from '../../../adapters/dingtalk/render.ts';

describe('renderDingtalkMd', () => {
  it('a table always carries the separator row, alignment kept, pipes in cells escaped', () => {
    const out = renderDingtalkMd('| 名称 | 数量 | 备注 |\n|:--|--:|:-:|\n| 泵房3 | 42 | a\\|b |\n| 泵房4 | 7 |  |');
    expect(out.split('\n')).toEqual(['| 名称 | 数量 | 备注 |', '| :--- | ---: | :---: |', '| 泵房3 | 42 | a\\|b |', '| 泵房4 | 7 |  |']);
  });

  it('the documented subset — headings, bold, italic, links, images, lists, quotes', () => {
    const out = renderDingtalkMd(
      '### 告警\n\n**粗** *斜* [文档](https://open.dingtalk.com/x) ![图](https://img.example/a.png)\n\n- 一\n- 二\n\n1. 甲\n2. 乙\n\n> 引用',
    );
    expect(out).toContain('### 告警');
    expect(out).toContain('**粗** *斜* [文档](https://open.dingtalk.com/x) ![图](https://img.example/a.png)');
    expect(out).toContain('- 一\n- 二');
    expect(out).toContain('1. 甲\n2. 乙');
    expect(out).toContain('> 引用');
  });

  it('single newlines become "  \\n" (DingTalk drops a bare newline inside a paragraph)', () => {
    expect(renderDingtalkMd('第一行\n第二行')).toBe('第一行  \n第二行');
  });

  it('user text cannot inject markup: * _ [ ] ` < | and leading # > - 1. are escaped; strikethrough dropped, text kept', () => {
    expect(renderDingtalkMd('a_b*c [x] `y` <font color=red>z</font>')).toBe('a\\_b\\*c \\[x\\] `y` \\<font color=red>z\\</font>');
    expect(escapeDingtalkMd('# 不是标题\n> 不是引用\n- 不是列表\n12. 不是编号')).toBe(
      '\\# 不是标题\n\\> 不是引用\n\\- 不是列表\n12\\. 不是编号',
    );
    expect(renderDingtalkMd('~~旧~~ 新')).toBe('旧 新');
  });

  it('only http/https/mailto links are kept as links; others become their text', () => {
    expect(renderDingtalkMd('[点我](javascript:alert(1)) [好](https://ok.example/a)')).toBe(
      '\\[点我\\](javascript:alert(1)) [好](https://ok.example/a)',
    );
    expect(renderDingtalkMd('[跳](ftp://x.example/f)')).toBe('跳');
  });

  it('code blocks stay fenced with a fence longer than any backtick run inside', () => {
    expect(renderDingtalkMd('```js\nlet a = 1;\n```')).toBe('```js\nlet a = 1;\n```');
    expect(renderDingtalkMd('~~~\nx ``` y\n~~~')).toBe('````\nx ``` y\n````');
  });

  it('never throws on odd input', () => {
    for (const s of ['', '\u0000', '|', '|-|', '```', '> > >', '*'.repeat(1000), '😀'.repeat(50)])
      expect(() => renderDingtalkMd(s)).not.toThrow();
  });
});

describe('dingtalkTitle', () => {
  it('the required title is the first line of text, markup removed, cut to the limit', () => {
    expect(dingtalkTitle('## 工单42\n\n进度')).toBe('工单42');
    expect(dingtalkTitle('**泵房3** 压力')).toBe('泵房3 压力');
    const long = '这是一段很长的回答'.repeat(5);
    const t = dingtalkTitle(long);
    expect([...t]).toHaveLength(DINGTALK_TITLE_MAX);
    expect(t.endsWith('…')).toBe(true);
    expect(dingtalkTitle('   ')).toBe('消息');
    expect(dingtalkTitle('', 'Reply')).toBe('Reply');
  });
});
