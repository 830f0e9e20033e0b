/**
 * Chunking timings (docs/performance.md "Chunking"): a realistic reply of 10 k, 100 k and 1 M
 * characters per dialect, rendered by the dialect's renderer (not timed) and split to the
 * platform's limit (timed, median of a few runs). Linear means ×10 text ≈ ×10 time. Absolute
 * times; never asserted in tests.
 */
import { splitMessage, type SplitFormat, type SplitUnit } from '../../src/channel/chunk.ts';
import { renderDingtalkMd } from '../../adapters/dingtalk/render.ts';
import { renderDiscordMarkdown } from '../../adapters/discord/render.ts';
import { renderFeishuCardMd } from '../../adapters/feishu/render.ts';
import { renderPlain } from '../../src/channel/render/index.ts';
import { renderTelegramHtml } from '../../adapters/telegram/render.ts';

/** One dialect × size. */
export interface ChunkTiming {
  dialect: string;
  chars: number;
  chunks: number;
  ms: number;
}

const DIALECTS: { name: string; render: (md: string) => string; format: SplitFormat; unit: SplitUnit; limit: number }[] = [
  { name: 'Telegram HTML', render: renderTelegramHtml, format: 'html', unit: 'utf16', limit: 4096 },
  { name: 'Discord', render: renderDiscordMarkdown, format: 'markdown', unit: 'utf16', limit: 2000 },
  { name: 'Feishu card', render: (s) => renderFeishuCardMd(s).markdown, format: 'markdown', unit: 'bytes', limit: 18_432 },
  { name: 'DingTalk', render: renderDingtalkMd, format: 'markdown', unit: 'chars', limit: 4000 },
  { name: 'WeCom', render: renderPlain, format: 'plain', unit: 'bytes', limit: 2048 },
  { name: 'plain', render: renderPlain, format: 'plain', unit: 'utf16', limit: 4096 },
];

const PARAGRAPH =
  '## 巡检 **泵房三号** 的结果\n\n压力 2.1 bar，温度正常 😀。见 [报告](https://example.com/report/2026-12-01) 与 `pump_3` 的日志；*下一步*：~~停机~~ 继续观察。\n\n| 项目 | 数值 |\n| --- | --- |\n| 压力 | 2.1 |\n| 温度 | 36 |\n\n```python\nprint("ok")\n```\n\n';

function sample(chars: number): string {
  return PARAGRAPH.repeat(Math.ceil(chars / PARAGRAPH.length)).slice(0, chars);
}

/** Time every dialect at every size (`runs` per figure, median). */
export function runChunkBench(sizes = [10_000, 100_000, 1_000_000], runs = 3): ChunkTiming[] {
  const out: ChunkTiming[] = [];
  for (const d of DIALECTS) {
    for (const n of sizes) {
      const input = d.render(sample(n));
      const times: number[] = [];
      let chunks = 0;
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        chunks = splitMessage(input, d.limit, d.unit, { format: d.format }).length;
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      out.push({ dialect: d.name, chars: input.length, chunks, ms: times[Math.floor(times.length / 2)]! });
    }
  }
  return out;
}

/** Print the timings as a table. */
export function printChunkTable(rows: ChunkTiming[]): void {
  console.log('\nchunking (median ms):');
  for (const r of rows)
    console.log(
      `  ${r.dialect.padEnd(14)} ${String(r.chars).padStart(8)} chars → ${String(r.chunks).padStart(4)} chunks  ${r.ms.toFixed(1).padStart(8)} ms`,
    );
}
