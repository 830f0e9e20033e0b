/**
 * Table headers repeated across chunks (src/channel/chunk.ts rule 4b; "table header
 * repeated in the next chunk"), shared by every adapter: GFM tables in markdown, the aligned
 * layout of src/channel/render in plain text.
 */
import { describe, expect, it } from 'vitest';
import { measure, splitMessage, splitMessageDetailed } from '../../../src/channel/chunk.ts';
import { renderPlain } from '../../../src/channel/render/index.ts';

function rows(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `| 泵房${i} | ${(i * 0.01).toFixed(2)} MPa | 正常 |`);
}

describe('chunk.ts: table header repeated after a cut', () => {
  it('markdown: every chunk that continues a GFM table starts with its header and delimiter rows', () => {
    const header = '| 设备 | 压力 | 状态 |\n|---|:-:|---|';
    const text = `说明\n\n${header}\n${rows(120).join('\n')}\n\n结尾`;
    const chunks = splitMessageDetailed(text, 600, 'bytes', { format: 'markdown' });
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(chunks.map((c) => c.body).join('')).toBe(text);
    for (const c of chunks.slice(1)) {
      if (c.body.startsWith('| 泵房')) expect(c.prefix).toBe(`${header}\n`);
      expect(measure(c.text, 'bytes')).toBeLessThanOrEqual(600);
    }
    expect(chunks.filter((c) => c.prefix !== '').length).toBeGreaterThanOrEqual(2);
  });

  it('markdown: a table inside a code fence is not a table (the fence is reopened instead)', () => {
    const text = `\`\`\`\n| a | b |\n|---|---|\n${rows(60).join('\n')}\n\`\`\``;
    const chunks = splitMessageDetailed(text, 500, 'bytes', { format: 'markdown' });
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    for (const c of chunks.slice(1)) expect(c.prefix).toBe('```\n');
  });

  it('plain: the aligned table of renderPlain keeps its header line and rule in each chunk', () => {
    const md = `| 设备 | 压力 |\n|---|---|\n${Array.from({ length: 150 }, (_, i) => `| 泵房${i} | ${i} |`).join('\n')}`;
    const plain = renderPlain(md);
    const [head, rule] = plain.split('\n');
    const chunks = splitMessage(plain, 700, 'bytes');
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const c of chunks) {
      expect(c.startsWith(`${head}\n${rule}\n`), c.slice(0, 60)).toBe(true);
      expect(measure(c, 'bytes')).toBeLessThanOrEqual(700);
    }
  });

  it('text without a table is split exactly as before (no prefixes)', () => {
    const text = Array.from({ length: 200 }, (_, i) => `第${i}行 - 内容`).join('\n');
    const chunks = splitMessageDetailed(text, 300, 'bytes');
    expect(chunks.every((c) => c.prefix === '' && c.suffix === '')).toBe(true);
    expect(chunks.map((c) => c.body).join('')).toBe(text);
  });
});
