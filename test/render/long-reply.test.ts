import { describe, expect, it } from 'vitest';
import { boundReply, cutNotice, REPLY_MAX_PARTS } from '../../src/channel/long-reply.ts';
import { measure } from '../../src/channel/chunk.ts';
import { composeReply } from '../../src/turn/reply/index.ts';
import type { AdapterCapabilities } from '../../src/channel/types.ts';

const TELEGRAM: AdapterCapabilities = { display: 'rich', buttons: true, max_length: 4096, length_unit: 'utf16', typing: true, media: true };
const WECOM: AdapterCapabilities = { display: 'text', buttons: false, max_length: 2048, length_unit: 'bytes', typing: false, media: true };

describe('long replies (docs/operations-delivery.md "Long replies")', () => {
  it('a text that fits is returned as is', () => {
    const r = boundReply('短回复', 100, 'bytes');
    expect(r).toEqual({ text: '短回复', cut: false, omitted: 0 });
  });

  it('a huge reply is cut at a line break within the budget and ends with the notice', () => {
    const text = '第一行内容\n'.repeat(200_000); // 1.2 M UTF-16 units
    for (const unit of ['utf16', 'bytes', 'chars'] as const) {
      const r = boundReply(text, 4096, unit, { lang: 'zh-CN' });
      expect(r.cut).toBe(true);
      expect(r.text.endsWith(cutNotice('zh-CN', r.omitted))).toBe(true);
      const head = r.text.slice(0, r.text.length - cutNotice('zh-CN', r.omitted).length - 2);
      expect(head.endsWith('第一行内容')).toBe(true);
      expect(text.startsWith(head)).toBe(true);
      expect(r.omitted).toBe(text.length - head.length);
    }
  });

  it('names the attachment carrying the full text when there is one (English)', () => {
    const r = boundReply('x'.repeat(100), 10, 'utf16', { lang: 'en', maxParts: 2, file: 'reply.md' });
    expect(r.text).toMatch(/the full text is attached as reply\.md\)$/);
  });

  it('composeReply: a 1 M-character planner reply becomes one message bounded to REPLY_MAX_PARTS - 1 messages of the limit', () => {
    const plannerText = '**泵房** 压力正常。'.repeat(100_000);
    for (const caps of [TELEGRAM, WECOM]) {
      const messages = composeReply({ plannerText, invocations: [], capabilities: caps, lang: 'zh-CN' });
      expect(messages).toHaveLength(1);
      const m = messages[0]!;
      expect(measure(m.text, caps.length_unit)).toBeLessThanOrEqual((REPLY_MAX_PARTS - 1) * caps.max_length);
      expect(m.text).toContain('回复过长');
      expect(m.omitted).toBeGreaterThan(plannerText.length - (REPLY_MAX_PARTS - 1) * caps.max_length);
      expect(m.final).toBe(true);
    }
  });
});
