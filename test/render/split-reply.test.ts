import { describe, expect, it } from 'vitest';
import { measure, splitMessage } from '../../src/channel/chunk.ts';
import { cutNotice, REPLY_MAX_PARTS } from '../../src/channel/long-reply.ts';
import { cutOf, splitReply } from '../../src/channel/split-reply.ts';

describe('splitReply: the one split after rendering (docs/operations-delivery.md "Long replies")', () => {
  it('a rendering that fits REPLY_MAX_PARTS messages is split exactly as splitMessage does', () => {
    const html = Array.from({ length: 20 }, (_, i) => `<b>第 ${i} 段</b> ${'内容'.repeat(40)}`).join('\n\n');
    expect(splitReply(html, 500, 'utf16', { format: 'html' })).toEqual(splitMessage(html, 500, 'utf16', { format: 'html' }));
    expect(splitReply('', 10, 'chars')).toEqual([]);
  });

  it('a longer rendering is cut to maxParts parts within the limit, one notice at the end counting both cuts', () => {
    const html = `<b>${'泵房压力正常。'.repeat(3000)}</b>`;
    for (const unit of ['utf16', 'bytes', 'chars'] as const) {
      const all = splitMessage(html, 1000, unit, { format: 'html' });
      expect(all.length).toBeGreaterThan(REPLY_MAX_PARTS);
      const parts = splitReply(html, 1000, unit, { format: 'html', omitted: 5000, lang: 'en' });
      expect(parts).toHaveLength(REPLY_MAX_PARTS);
      for (const p of parts) {
        expect(measure(p, unit)).toBeLessThanOrEqual(1000);
        expect((p.match(/<b>/g) ?? []).length).toBe((p.match(/<\/b>/g) ?? []).length);
      }
      expect(parts.slice(0, -1)).toEqual(all.slice(0, REPLY_MAX_PARTS - 1));
      const last = parts.at(-1)!;
      const n = Number(/about (\d+) characters/.exec(last)?.[1]);
      const dropped = all.slice(REPLY_MAX_PARTS).join('').length;
      expect(n).toBeGreaterThan(5000 + dropped);
      expect(last.endsWith(cutNotice('en', n))).toBe(true);
      expect(parts.filter((p) => p.includes('reply too long'))).toHaveLength(1);
    }
  });

  it('takes the language and the core cut from the message; maxParts < 1 is refused', () => {
    expect(cutOf({})).toEqual({ lang: 'zh-CN', omitted: 0 });
    expect(cutOf({ lang: 'en', omitted: 7 })).toEqual({ lang: 'en', omitted: 7 });
    const parts = splitReply('字'.repeat(100), 10, 'chars', { maxParts: 1, ...cutOf({}) });
    expect(parts).toHaveLength(1);
    expect(parts[0]).toContain('回复过长');
    expect(() => splitReply('x', 10, 'chars', { maxParts: 0 })).toThrow(RangeError);
  });

  it("the adapter's own cut still names the file that holds the whole text (attached, or kept in the session)", () => {
    const file = '完整回复-20250115-080210.md';
    const media = [{ kind: 'file' as const, path: `/w/.offload/${file}`, filename: file }];
    expect(cutOf({ omitted: 9, full_text_file: file, media })).toEqual({ lang: 'zh-CN', omitted: 9, file: { name: file, attached: true } });
    expect(cutOf({ lang: 'en', full_text_file: 'full-reply-1.md' })).toEqual({
      lang: 'en',
      omitted: 0,
      file: { name: 'full-reply-1.md', attached: false },
    });
    const html = `<b>${'泵房压力正常。'.repeat(3000)}</b>`;
    const zh = splitReply(html, 1000, 'utf16', { format: 'html', ...cutOf({ omitted: 9, full_text_file: file, media }) });
    expect(zh).toHaveLength(REPLY_MAX_PARTS);
    expect(zh.at(-1)).toMatch(/省略约 \d+ 字符；全文见附件 完整回复-20250115-080210\.md）$/);
    expect(measure(zh.at(-1)!, 'utf16')).toBeLessThanOrEqual(1000);
    const en = splitReply(html, 1000, 'utf16', { format: 'html', ...cutOf({ lang: 'en', full_text_file: 'full-reply-1.md' }) });
    expect(en.at(-1)).toMatch(/characters left out; the full text is saved as the session file full-reply-1\.md\)$/);
  });
});
