/**
 * Telegram's HTML dialect (adapters/telegram/render.ts; parse_mode `HTML`).
 */
import { describe, expect, it } from 'vitest';
import { renderTelegramHtml } from '../../../adapters/telegram/render.ts';
import { tags } from '../../helpers/html-tags.ts';

const TG_TAGS = new Set(['b', 'strong', 'i', 'em', 'u', 's', 'del', 'a', 'code', 'pre', 'blockquote']);

describe('renderTelegramHtml (D-22: Telegram renders display_md natively)', () => {
  it('escapes < > & in text, code and code blocks', () => {
    const out = renderTelegramHtml('a < b && c > d <b>not bold</b>\n\n`x<y&z`\n\n```\nif (a<b && c>d) {}\n```');
    expect(out).toContain('a &lt; b &amp;&amp; c &gt; d &lt;b&gt;not bold&lt;/b&gt;');
    expect(out).toContain('<code>x&lt;y&amp;z</code>');
    expect(out).toContain('<pre>if (a&lt;b &amp;&amp; c&gt;d) {}</pre>');
  });

  it('leaves MarkdownV2 special characters alone (HTML mode needs no backslashes)', () => {
    const out = renderTelegramHtml('Price: 1.5 (approx) - #tag _x_ = y! [z] {w} |v| ~');
    expect(out).toBe('Price: 1.5 (approx) - #tag <i>x</i> = y! [z] {w} |v| ~');
  });

  it('uses only tags Telegram documents, quotes attribute values, never nests blockquote', () => {
    const out = renderTelegramHtml(
      '# Head\n\n**b** *i* ~~s~~ [l](https://e.example/?q="x"&r=1)\n\n> q1\n> > q2\n\n- a\n  - b\n\n| k | v |\n|---|--:|\n| 苹果 | 3 |\n| pear | 12 |\n\n```py\nx<1\n```',
    );
    for (const t of tags(out)) {
      expect(TG_TAGS.has(t.name) || (t.name === 'code' && t.attrs.every(([k, v]) => k === 'class' && /^language-/.test(v)))).toBe(true);
    }
    expect(out).toContain('<b>Head</b>');
    expect(out).toContain('<s>s</s>');
    expect(out).toContain('<a href="https://e.example/?q=%22x%22&amp;r=1">l</a>');
    expect(out.match(/<blockquote>/g)).toHaveLength(1);
    expect(out).toContain('• a\n  • b');
    expect(out).toContain('<pre>k    |  v\n-----+---\n苹果 |  3\npear | 12</pre>');
    expect(out).toContain('<pre><code class="language-py">x&lt;1</code></pre>');
  });

  it('drops links with refused schemes but keeps their text', () => {
    const out = renderTelegramHtml('[x](javascript:alert(1)) [y](/files/abc)');
    expect(out).not.toContain('<a');
    expect(out).toContain('y');
  });
});
