/**
 * The Feishu card markdown dialect (adapters/feishu/render.ts;
 * docs/results.md#5-how-a-result-is-shown rich display): escaping, links, fences, and the table
 * limit (six markdown tables on Feishu).
 */
import { describe, expect, it } from 'vitest';
import { countTables, escapeFeishuMd, renderFeishuCardMd } from '../../../adapters/feishu/render.ts';

function table(i: number): string {
  return `| 项目${i} | 数量 |\n|---|--:|\n| 泵${i} | ${i * 10} |`;
}

describe('Feishu card markdown', () => {
  it('six tables: three stay native, three degrade to code blocks, every cell kept (error 11310 avoided)', () => {
    const md = Array.from({ length: 6 }, (_, i) => `第${i + 1}张表\n\n${table(i + 1)}`).join('\n\n');
    expect(countTables(md)).toBe(6);
    const out = renderFeishuCardMd(md);
    expect(out).toMatchObject({ tables: 6, degraded: 3 });
    const native = out.markdown.split('\n').filter((l) => /^\|( -+ |[ :-]+)\|/.test(l) && /-/.test(l));
    expect(native).toHaveLength(3);
    expect(out.markdown.match(/^```$/gm)?.length).toBe(6); // 3 fenced blocks (open + close)
    for (let i = 1; i <= 6; i++) {
      expect(out.markdown).toContain(`项目${i}`);
      expect(out.markdown).toContain(`泵${i}`);
      expect(out.markdown).toContain(String(i * 10));
    }
    expect(renderFeishuCardMd(md, { tableLimit: 6 }).degraded).toBe(0);
  });

  it('escapes text so it cannot form tags or markup; code stays literal', () => {
    expect(escapeFeishuMd('<at id=all></at> & *x* _y_ [z]')).toBe('&lt;at id=all&gt;&lt;/at&gt; &amp; \\*x\\* \\_y\\_ \\[z\\]');
    const out = renderFeishuCardMd('a < b && c > d\n\n`<b>` and\n\n```js\nif (a < b) { x = "```" }\n```').markdown;
    expect(out).toContain('a &lt; b &amp;&amp; c &gt; d');
    expect(out).toContain('`<b>`');
    expect(out).toContain('````js\nif (a < b) { x = "```" }\n````');
  });

  it('formats emphasis, links (http/https/mailto only), lists, quotes, headings as bold', () => {
    const out = renderFeishuCardMd(
      '# 标题\n\n**粗** *斜* ~~删~~ [链接](https://example.com/a_(b)) [坏](javascript:alert(1))\n\n- 一\n- 二\n  1. 甲\n\n> 引用',
    ).markdown;
    expect(out).toContain('**标题**');
    expect(out).toContain('**粗** *斜* ~~删~~');
    expect(out).toContain('[链接](https://example.com/a_%28b%29)');
    expect(out).not.toMatch(/(?<!\\)\]\(javascript:/); // stays literal, escaped text
    expect(out).toContain('- 一\n- 二\n    1. 甲');
    expect(out).toContain('> 引用');
  });

  it('never throws on odd input', () => {
    for (const s of ['', '\u0000', '|', '```', '[', '<', '\ud800', '| a |\n|---|\n'.repeat(50)])
      expect(() => renderFeishuCardMd(s)).not.toThrow();
  });
});
