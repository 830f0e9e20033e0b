/**
 * The web channel is its own platform (docs/operations-delivery.md "Unknown outcomes"): a reply
 * whose frames were stored but whose delivery mark was lost (a crash between the two) is
 * resent by the outbox as an unknown outcome, and the resend finds the frames the first
 * attempt stored instead of storing them a second time.
 */
import { beforeAll, expect, it } from 'vitest';
import { appendFrame, framesAfter } from '../../adapters/web/frames.ts';
import { WebHub } from '../../adapters/web/hub.ts';
import { conversationIdFor } from '../../adapters/web/conversation.ts';
import { sendToWeb } from '../../adapters/web/outbound.ts';
import type { WebContext } from '../../adapters/web/context.ts';
import { renderWebHtml } from '../../src/channel/index.ts';
import { createLogger } from '../../src/log/logger.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';

describeEachEngine('web: a resend after an unknown outcome', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  it('returns the frames the first attempt stored and stores nothing again; another row is stored as usual', async () => {
    const log = createLogger({ level: 'silent' });
    const conversationId = conversationIdFor('demo', `zhang_${Date.now().toString(36)}`);
    await appendFrame(db(), {
      conversationId,
      orgId: 'demo',
      contactKey: 'zhang',
      body: { type: 'user.echo', text: 'hi' } as never,
      nowMs: 1000,
    });
    const ctx = {
      db: db(),
      log,
      dataDir: '/tmp',
      orgId: 'demo',
      demo: true,
      hub: new WebHub(db(), log),
      clock: () => 2000,
      host: () => undefined,
      renderHtml: renderWebHtml,
    } as unknown as WebContext;
    const target = { channel: 'web', account: 'default', chat_id: conversationId };
    const message = { kind: 'reply' as const, text: '已完成。', format: 'markdown' as const, final: true, reply_to: 'm1' };
    const first = await sendToWeb(ctx, target, message, { idempotencyKey: 'outbox:41' });
    expect(first.ok).toBe(true);
    const again = await sendToWeb(ctx, target, message, { idempotencyKey: 'outbox:41', unknownOutcome: true });
    expect(again).toEqual(first);
    const replies = (await framesAfter(db(), conversationId, 0)).filter((f) => f.type === 'assistant.message');
    expect(replies).toHaveLength(1);
    // an unknown outcome whose first attempt stored nothing is stored now
    const other = await sendToWeb(ctx, target, { ...message, reply_to: 'm2' }, { idempotencyKey: 'outbox:42', unknownOutcome: true });
    expect(other.ok).toBe(true);
    expect((await framesAfter(db(), conversationId, 0)).filter((f) => f.type === 'assistant.message')).toHaveLength(2);
  });
});
