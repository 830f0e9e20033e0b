/**
 * The plain-line shortcut of the renderer (src/channel/render/ast.ts `isPlainLine`): a line
 * the parser would leave as one paragraph of itself skips markdown-it. Property check: for
 * random plain lines, every dialect renders exactly what the full parser path renders (a
 * trailing newline disables the shortcut and changes nothing for markdown-it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainLine, parseMarkdown } from '../../src/channel/render/ast.ts';
import { renderDingtalkMd } from '../../adapters/dingtalk/render.ts';
import { renderDiscordMarkdown } from '../../adapters/discord/render.ts';
import { renderFeishuCardMd } from '../../adapters/feishu/render.ts';
import { renderPlain } from '../../src/channel/render/index.ts';
import { renderTelegramHtml } from '../../adapters/telegram/render.ts';
import { renderWebHtml } from '../../src/channel/render/web-html.ts';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261202) });

const PIECES = [
  '好的',
  '已完成',
  '泵房',
  'pong',
  'OK',
  'Zürich',
  'é',
  '2026',
  '１２',
  '😀',
  '👍🏽',
  '👨‍👩‍👧',
  '，',
  '。',
  '、',
  '！',
  '？',
  '（',
  '）',
  '「',
  '」',
  '：',
  ' ',
  ',',
  '?',
  ';',
  '%',
  '\u3000',
  'www',
  'com',
  'http',
  'mailto',
  'x',
];
const plainLine = fc
  .array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 40 })
  .map((parts) => parts.join(''))
  .filter((s) => isPlainLine(s));

const DIALECTS: [string, (md: string) => string][] = [
  ['web', renderWebHtml],
  ['telegram', renderTelegramHtml],
  ['discord', renderDiscordMarkdown],
  ['feishu', (md) => renderFeishuCardMd(md).markdown],
  ['dingtalk', renderDingtalkMd],
  ['plain', renderPlain],
];

describe('plain-line shortcut', () => {
  it('is taken for ordinary replies and not for markup, links, lists or edge spaces', () => {
    for (const s of ['好的，已完成。', 'pong', '压力正常 😀', 'Done, 3 rows'] as const) expect(isPlainLine(s)).toBe(true);
    for (const s of ['**好**', 'example.com', 'a@b', '1) x', '- x', '# x', '> x', ' x', 'x ', 'a\nb', '<b>', 'a&amp;b', 'a:b', "it's"])
      expect(isPlainLine(s)).toBe(false);
  });

  it('parses to the tree markdown-it gives', () => {
    fc.assert(
      fc.property(plainLine, (s) => {
        expect(parseMarkdown(s)).toEqual(parseMarkdown(`${s}\n`));
        expect(parseMarkdown(s)).toEqual([{ type: 'paragraph', children: [{ type: 'text', text: s }] }]);
      }),
      { numRuns: 500 },
    );
  });

  it.each(DIALECTS)('%s renders it as the full path does', (_name, render) => {
    fc.assert(
      fc.property(plainLine, (s) => {
        expect(render(s)).toBe(render(`${s}\n`));
      }),
      { numRuns: 300 },
    );
  });
});
