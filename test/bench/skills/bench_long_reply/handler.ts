/** Bench skill: a display_md of about 1 M characters with Telegram-relevant markup (bold, links, `&`). */
export async function execute(): Promise<Record<string, unknown>> {
  const line = '**泵房** 压力 [报告](https://example.com/r?a=1&b=2) 正常 & 稳定。\n';
  return { success: true, display_md: line.repeat(Math.ceil(1_000_000 / line.length)) };
}
