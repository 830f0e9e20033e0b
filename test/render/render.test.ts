import { describe, expect, it } from 'vitest';
import { renderPlain, renderWebHtml } from '../../src/channel/render/index.ts';
import { tags } from '../helpers/html-tags.ts';

const WEB_TAGS = new Set([
  'p',
  'br',
  'strong',
  'em',
  'del',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'img',
]);
const WEB_ATTRS: Record<string, string[]> = { a: ['href', 'target', 'rel'], img: ['src', 'alt'], ol: ['start'], code: ['class'] };

function assertSafeWeb(html: string): void {
  for (const t of tags(html)) {
    expect(WEB_TAGS.has(t.name), `tag <${t.name}> in ${html}`).toBe(true);
    for (const [k, v] of t.attrs) {
      expect(WEB_ATTRS[t.name] ?? [], `attribute ${k} on <${t.name}> in ${html}`).toContain(k);
      if (k === 'href') expect(v).toMatch(/^(https?:|mailto:|\/files\/)/);
      if (k === 'src') expect(v).toMatch(/^\/files\/[A-Za-z0-9_-]+/);
      if (k === 'class') expect(v).toMatch(/^language-[A-Za-z0-9_+-]+$/);
    }
    if (t.name === 'a' && t.attrs.some(([k]) => k === 'href')) {
      expect(t.attrs).toContainEqual(['rel', 'noopener noreferrer']);
      expect(t.attrs).toContainEqual(['target', '_blank']);
    }
  }
  // No live markup: a raw `<` only ever opens an allowed tag (text is entity-escaped).
  expect(html).not.toMatch(/<(script|iframe|svg|style|object|embed|form|input|math|base|meta|link)\b/i);
  for (const m of html.matchAll(/<[^>]*>/g)) expect(m[0]).not.toMatch(/\son[a-z]+\s*=|javascript:|vbscript:|data:/i);
}

// ≥ 25 hostile payloads: skill or user text that must never become live markup.
const HOSTILE: string[] = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=//evil.example/x.js></SCRIPT>',
  '<img src=x onerror=alert(1)>',
  '<svg onload=alert(1)><circle r=1 /></svg>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<style>body{background:url(javascript:alert(1))}</style>',
  '<a href="javascript:alert(1)">x</a>',
  '[click](javascript:alert(1))',
  '[click](JaVaScRiPt:alert(1))',
  '[click](jav&#x61;script:alert(1))',
  '[click](&#106;avascript:alert(1))',
  '[click](java\tscript:alert(1))',
  '[click](vbscript:msgbox(1))',
  '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '![img](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  '![img](javascript:alert(1))',
  '![img](https://evil.example/track.png)',
  '![img](//evil.example/x.png)',
  '<javascript:alert(1)>',
  '[x](https://ok.example/" onmouseover="alert(1))',
  '[x](<https://ok.example/a b> "t\\" onclick=\\"alert(1)")',
  '**bold<img src=x onerror=alert(1)>**',
  '`<script>alert(1)</script>`',
  '```html\n<script>alert(1)</script>\n```',
  '```" onmouseover="alert(1)\nx\n```',
  '| a | b |\n|---|---|\n| <script>x</script> | [y](javascript:z) |',
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  '<div style="position:fixed">x</div><form action=//evil><input name=a></form>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '[a](/files/../admin) [b](/admin) ![c](/files/abc onerror=alert(1))',
  '<object data="javascript:alert(1)"></object><embed src=javascript:alert(1)>',
  '<base href="javascript:/"><meta http-equiv=refresh content="0;url=javascript:alert(1)">',
];

describe('renderWebHtml (R-DISP-01): hostile markdown corpus', () => {
  it.each(HOSTILE.map((p, i) => [i, p]))('payload %i is neutralised', (_i, payload) => {
    assertSafeWeb(renderWebHtml(payload as string));
  });

  it('raw HTML stays visible as text, not markup', () => {
    const html = renderWebHtml('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('keeps legitimate markdown: emphasis, code, lists, tables, safe links, own images', () => {
    const html = renderWebHtml(
      '# T\n\n**b** *i* ~~d~~ `c`\n\n- one\n- two\n\n3. x\n\n| h |\n|---|\n| 1 |\n\n[doc](https://example.com/a?b=1&c=2) [mail](mailto:a@example.com) ![chart](/files/att_123)',
    );
    expect(html).toContain('<h1>T</h1>');
    expect(html).toContain('<strong>b</strong>');
    expect(html).toContain('<em>i</em>');
    expect(html).toContain('<del>d</del>');
    expect(html).toContain('<code>c</code>');
    expect(html).toMatch(/<ul>\s*<li>one<\/li>/);
    expect(html).toContain('<ol start="3">');
    expect(html).toContain('<td>1</td>');
    expect(html).toContain('href="https://example.com/a?b=1&amp;c=2"');
    expect(html).toContain('href="mailto:a@example.com"');
    expect(html).toMatch(/<img src="\/files\/att_123" alt="chart"/);
    assertSafeWeb(html);
  });

  it('a link with a refused scheme keeps its text without a link', () => {
    const html = renderWebHtml('see [here](https://evil.example/x" onclick="y) and ![p](https://cdn.example/p.png)');
    assertSafeWeb(html);
    expect(html).toContain('<a href="https://cdn.example/p.png" target="_blank" rel="noopener noreferrer">p</a>');
  });

  it('renders the web fixture display_md faithfully (fixtures/web/server_reply_display_md.json)', () => {
    const html = renderWebHtml(
      '**泵房3** 当前压力 `2.1 bar`，低于基线 (2.5 bar)。\n\n- 建议检查密封\n- 详见 [报告](https://example.com/report/42)',
    );
    expect(html).toContain('<strong>泵房3</strong> 当前压力 <code>2.1 bar</code>，低于基线 (2.5 bar)。');
    expect(html).toContain('<li>详见 <a href="https://example.com/report/42" target="_blank" rel="noopener noreferrer">报告</a></li>');
  });
});

describe('renderPlain (faithful plain rendering, D-22)', () => {
  it('keeps every number and list item verbatim, removes markup', () => {
    const md =
      '## 规则\n\n**泵房3** 当前压力 `2.1 bar`，低于基线 (2.5 bar)。\n\n1. 第一条：≤ 3.14%\n2. 第二条 *重要*\n   - 子项 0.001\n\n- 详见 [报告](https://example.com/report/42)\n- <https://example.com/raw>';
    const out = renderPlain(md);
    expect(out).toBe(
      '规则\n\n泵房3 当前压力 2.1 bar，低于基线 (2.5 bar)。\n\n1. 第一条：≤ 3.14%\n2. 第二条 重要\n   • 子项 0.001\n\n• 详见 报告 (https://example.com/report/42)\n• https://example.com/raw',
    );
  });

  it('tables as aligned rows, code kept, quotes marked', () => {
    const out = renderPlain('| 名称 | 数量 |\n|---|---:|\n| 苹果 | 3 |\n\n```\nconst a = 1 * 2;\n```\n\n> 注意 *这里*');
    expect(out).toBe('名称 | 数量\n-----+-----\n苹果 |    3\n\nconst a = 1 * 2;\n\n│ 注意 这里');
  });

  it('escaped markup characters survive as text', () => {
    expect(renderPlain('a \\*literal\\* b_c 5 \\< 6')).toBe('a *literal* b_c 5 < 6');
  });
});
