/**
 * display_only defaults to false (R-DISP-03):
 * a skill result with display_md and no flag — or any flag value that is not `true` — is
 * appended after the model's text, never replacing it. Checked from the skill's raw return
 * value (normalised as the executor does) through reply composition to what the web chat and
 * Telegram actually render.
 */
import { describe, expect, it } from 'vitest';
import { TelegramAdapter } from '../../adapters/telegram/index.ts';
import { textChunks } from '../../adapters/telegram/outbound.ts';
import { WEB_CAPABILITIES } from '../../adapters/web/index.ts';
import { framesOf } from '../../adapters/web/outbound.ts';
import { renderWebHtml } from '../../src/channel/render/web-html.ts';
import type { AdapterCapabilities, OutboundMessage } from '../../src/channel/types.ts';
import { normalizeEnvelope } from '../../src/envelope/normalize.ts';
import { createLogger } from '../../src/log/logger.ts';
import { composeReply } from '../../src/turn/reply/index.ts';

const MODEL = '模型的说明：本月库存见下表。';
const BLOCK = '| 货品 | 库存 |\n|---|---|\n| 螺丝 | 1200 |';

const telegram = new TelegramAdapter(
  { account: 'default', token: '1:x', webhookSecret: 's', mode: 'webhook', apiRoot: 'http://127.0.0.1:9', maxRetryDelayS: 0 },
  { db: { query: () => Promise.reject(new Error('no database')) }, log: createLogger({ level: 'silent' }) },
);

/** The reply of one turn whose only tool returned `value` (normalised like the executor does). */
function reply(value: Record<string, unknown>, caps: AdapterCapabilities): OutboundMessage[] {
  const envelope = normalizeEnvelope({ kind: 'returned', value }, { skill: 'stock', lang: 'zh-CN' });
  return composeReply({ plannerText: MODEL, invocations: [{ tool: 'stock', args: {}, envelope }], capabilities: caps, lang: 'zh-CN' });
}

describe('display_only defaults to false (R-DISP-03)', () => {
  const channels: Array<[string, AdapterCapabilities]> = [
    ['web', WEB_CAPABILITIES],
    ['telegram', telegram.capabilities],
  ];

  for (const [name, caps] of channels) {
    it(`R-DISP-03 [${name}]: a block without the flag is appended after the model's text, not replacing it`, () => {
      const [m, ...rest] = reply({ success: true, display_md: BLOCK }, caps);
      expect(rest).toEqual([]);
      expect(m!.text).toBe(`${MODEL}\n\n${BLOCK}`);
    });

    it(`R-DISP-03 [${name}]: false, null, "false", 0 and "" behave as the default (append); only true replaces`, () => {
      for (const flag of [false, null, 'false', 0, '']) {
        expect(reply({ success: true, display_md: BLOCK, display_only: flag }, caps)[0]!.text, JSON.stringify(flag)).toBe(
          `${MODEL}\n\n${BLOCK}`,
        );
      }
      expect(reply({ success: true, display_md: BLOCK, display_only: true }, caps)[0]!.text).toBe(BLOCK);
    });
  }

  it('R-DISP-03: the web chat shows the model text and the block, each once', () => {
    const [m] = reply({ success: true, display_md: BLOCK }, WEB_CAPABILITIES);
    const frames = framesOf({ renderHtml: renderWebHtml }, m!);
    expect(frames).toHaveLength(1);
    const html = String((frames[0] as { html: string | null }).html);
    expect(html).toContain('模型的说明');
    expect(html.match(/<table/g)).toHaveLength(1);
    expect(html.indexOf('模型的说明')).toBeLessThan(html.indexOf('<table'));
  });

  it('R-DISP-03: Telegram renders the model text followed by the block rows', () => {
    const [m] = reply({ success: true, display_md: BLOCK }, telegram.capabilities);
    const html = textChunks(m!)
      .map((c) => c.text)
      .join('\n');
    expect(html).toContain('模型的说明');
    expect(html).toContain('螺丝');
    expect(html).toContain('1200');
    expect(html.indexOf('模型的说明')).toBeLessThan(html.indexOf('螺丝'));
  });
});
