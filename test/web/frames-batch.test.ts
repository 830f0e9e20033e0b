/**
 * Frames stored together (adapters/web/frames.ts appendFrames, the hub's group commit): each
 * conversation's seqs stay consecutive and in argument order, also with several frames of one
 * conversation in a batch, and what is read back is what was stored.
 */
import { beforeAll, expect, it } from 'vitest';
import { appendFrame, appendFrames, framesAfter } from '../../adapters/web/frames.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';

describeEachEngine('web frames stored in one statement', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  it('assigns each conversation its next seqs in order', async () => {
    await appendFrame(db(), {
      conversationId: 'conv_a',
      orgId: 'demo',
      contactKey: 'a',
      body: { type: 'assistant.message', text: 'a0' } as never,
      nowMs: 1000,
    });
    const body = (t: string) => ({ type: 'assistant.message', text: t }) as never;
    let statements = 0;
    const counted = { query: (text: string, values?: unknown[]) => (statements++, db().query(text, values as never)) } as never;
    const stored = await appendFrames(counted, [
      { conversationId: 'conv_a', orgId: 'demo', contactKey: 'a', body: body('a1'), nowMs: 2000 },
      { conversationId: 'conv_b', orgId: 'demo', contactKey: 'b', body: body('b1'), nowMs: 2000 },
      { conversationId: 'conv_a', orgId: 'demo', contactKey: 'a', body: body('a2'), nowMs: 2000 },
      { conversationId: 'conv_c', orgId: 'demo', contactKey: 'c', body: body('c1'), nowMs: 2000 },
    ]);
    expect(stored.map((f) => [f.conversation_id, f.seq, f.id])).toEqual([
      ['conv_a', 2, 's_2'],
      ['conv_b', 1, 's_1'],
      ['conv_a', 3, 's_3'],
      ['conv_c', 1, 's_1'],
    ]);
    expect(statements).toBe(1);
    const a = await framesAfter(db(), 'conv_a', 0);
    expect(a.map((f) => [f.seq, (f as unknown as { text: string }).text])).toEqual([
      [1, 'a0'],
      [2, 'a1'],
      [3, 'a2'],
    ]);
    expect(a[1]).toMatchObject({ v: 1, conversation_id: 'conv_a', id: 's_2', ts: new Date(2000).toISOString() });
  });
});
