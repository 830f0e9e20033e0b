/**
 * Per-sender flood control (src/inbox/flood.ts): over the limit within a minute, a sender's
 * messages are stored `refused` (a redelivery stays a duplicate), never reach a turn, and the
 * first refusal of the minute gets one polite notice in the sender's language. Both engines;
 * the minute on an injected clock.
 */
import { beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createInbox, floodLimitFromEnv, floodNotice } from '../../src/inbox/index.ts';
import type { InboundMessage } from '../../src/channel/types.ts';
import { captureLog, inbound, until } from './helpers.ts';

describeEachEngine('inbox flood control', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });
  beforeEach(async () => {
    await db().query('TRUNCATE skillgate.inbox_events');
  });

  it('the 4th and 5th message of a minute (limit 3) are refused with one notice; redeliveries stay duplicates; others and the next minute are unaffected', async () => {
    const { log } = captureLog();
    let t = Date.parse('2026-12-01T10:00:00Z');
    const notices: Array<{ key: string; text: string }> = [];
    const handled: string[] = [];
    const inbox = createInbox(db(), {
      log,
      clock: () => t,
      pollMs: 10,
      flood: { perMinute: 3, notify: async (m, text) => void notices.push({ key: m.dedupe_key, text }) },
    });
    inbox.start(async (e) => void handled.push(e.message.raw_input ?? ''));
    try {
      const from = (who: string, key: string, lang?: 'en'): InboundMessage => ({
        ...inbound(`chat-${who}`, key, `${who} ${key}`),
        actor: { id: who, display_name: who },
        lang,
      });
      const results: string[] = [];
      for (const k of ['1', '2', '3', '4', '5']) {
        results.push(await inbox.receive(from('ann', k)));
        t += 1000;
      }
      expect(results).toEqual(['accepted', 'accepted', 'accepted', 'accepted', 'accepted']);
      expect(notices).toEqual([{ key: 'telegram:update:4', text: floodNotice('zh-CN', 3) }]);
      expect(notices[0]!.text).toContain('每分钟最多 3 条');
      // Redeliveries of a refused and of an accepted message are duplicates; no second notice.
      expect(await inbox.receive(from('ann', '4'))).toBe('duplicate');
      expect(await inbox.receive(from('ann', '1'))).toBe('duplicate');
      // Another sender is not limited; a button press does not count.
      expect(await inbox.receive(from('bob', 'b1'))).toBe('accepted');
      expect(await inbox.receive({ ...from('ann', 'cb1'), kind: 'callback', callback: { action: 'confirm', token: 't' } })).toBe(
        'accepted',
      );
      await until(async () => (await inbox.backlog()) === 0 && handled.length === 5, 'taken messages handled');
      expect(handled.sort()).toEqual(['ann 1', 'ann 2', 'ann 3', 'ann cb1', 'bob b1']);
      const { rows } = await db().query<{ dedupe_key: string; status: string }>(
        `SELECT dedupe_key, status FROM skillgate.inbox_events WHERE status = 'refused' ORDER BY id`,
      );
      expect(rows).toEqual([
        { dedupe_key: 'telegram:update:4', status: 'refused' },
        { dedupe_key: 'telegram:update:5', status: 'refused' },
      ]);
      // A minute later the sender is taken again; the next overflow gets one new notice (English here).
      t += 61_000;
      for (const k of ['6', '7', '8', '9']) await inbox.receive(from('ann', k, 'en'));
      await until(() => handled.includes('ann 8'), 'next minute handled');
      expect(handled).not.toContain('ann 9');
      expect(notices.map((n) => n.key)).toEqual(['telegram:update:4', 'telegram:update:9']);
      expect(notices[1]!.text).toBe(floodNotice('en', 3));
    } finally {
      await inbox.stop();
    }
  });

  it('SKILLGATE_FLOOD_PER_MINUTE: default 60, 0 = off, anything else is refused with the variable named', () => {
    expect(floodLimitFromEnv({})).toBe(60);
    expect(floodLimitFromEnv({ SKILLGATE_FLOOD_PER_MINUTE: '0' })).toBe(0);
    expect(floodLimitFromEnv({ SKILLGATE_FLOOD_PER_MINUTE: ' 12 ' })).toBe(12);
    expect(() => floodLimitFromEnv({ SKILLGATE_FLOOD_PER_MINUTE: 'lots' })).toThrow(/SKILLGATE_FLOOD_PER_MINUTE/);
  });
  it('a burst of one sender arriving at the same moment lets exactly the limit through, with one notice', async () => {
    const { log } = captureLog();
    const t = Date.parse('2026-12-01T11:00:00Z');
    const notices: string[] = [];
    const inbox = createInbox(db(), {
      log,
      clock: () => t,
      pollMs: 10,
      flood: { perMinute: 5, notify: async (m) => void notices.push(m.dedupe_key) },
    });
    const msgs = Array.from({ length: 12 }, (_, i) => ({
      ...inbound(`chat-burst-${i}`, `burst${i}`, `burst ${i}`),
      actor: { id: 'carol', display_name: 'carol' },
    }));
    const results = await Promise.all(msgs.map((m) => inbox.receive(m)));
    expect(results.every((r) => r === 'accepted')).toBe(true);
    const { rows } = await db().query<{ status: string; n: number }>(
      `SELECT CASE WHEN status = 'refused' THEN 'refused' ELSE 'taken' END AS status, count(*)::int AS n
         FROM skillgate.inbox_events GROUP BY 1 ORDER BY 1`,
    );
    expect(rows).toEqual([
      { status: 'refused', n: 7 },
      { status: 'taken', n: 5 },
    ]);
    expect(notices).toHaveLength(1);
  });
});
