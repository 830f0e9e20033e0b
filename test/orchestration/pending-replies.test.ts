/**
 * Pending replies (R-MSG-09, A-24; README.md#start; docs/messaging.md) through the real turn
 * handler (makeTurnHarness with the PendingRepliesRouter): a ticket skill sends to a worker with
 * call_skill("send_message") over the REAL outbox and waits with runtime_context.await_reply
 * (or call_skill("await_reply")); the worker's next message reaches the continuation skill
 * before any planning. Expiry uses an injected clock.
 */
import { fileURLToPath } from 'node:url';
import { beforeAll, afterAll, beforeEach, expect, it } from 'vitest';
import { describeEachEngine } from '../helpers/db.ts';
import { makeTurnHarness, type TurnHarness } from '../turn/helpers.ts';
import { runSkill } from '../../src/wiring/skill-call.ts';
import { seedDemoDirectory } from '../../src/identity/index.ts';
import {
  PendingRepliesRouter,
  resolvePendingReply,
  registerPendingReply,
  pickPendingReply,
  namesRef,
} from '../../src/orchestration/pending-replies.ts';
import { messagingEnv, type MessagingEnv } from './helpers.ts';
import { looseRequest } from '../helpers/request.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/orchestration/', import.meta.url));
const WORKER = 'web:demo_worker';

describeEachEngine('pending replies', (db) => {
  let h: TurnHarness;
  let env: MessagingEnv;
  let now = new Date('2030-01-01T08:00:00Z');
  const clock = (): Date => now;

  beforeAll(async () => {
    h = await makeTurnHarness(db(), {
      pendingReplies: (services) => new PendingRepliesRouter({ db: services.db, now: clock }),
      skillRoots: [{ dir: FIXTURES, source: 'shared' }],
    });
    // send_message refuses web contact keys that are not in the role's directory.
    await seedDemoDirectory(db(), 'demo', 'default');
    env = messagingEnv(db(), { now: clock });
    env.adapters.set('web:default', h.adapter);
    h.services.messaging = { ...env.messaging, skillExists: (n) => h.services.registry.resolveTool(n) !== undefined };
  });
  afterAll(async () => {
    await env.stop();
  });
  beforeEach(async () => {
    await db().query('DELETE FROM skillgate.pending_replies');
    now = new Date('2030-01-01T08:00:00Z');
  });

  const openTicket = (ticket: string, extra: Record<string, unknown> = {}) =>
    runSkill(
      h.services,
      looseRequest({
        skill: 'open_ticket',
        input: { ticket, worker: WORKER, ...extra },
        defaults: {
          role_id: 'default',
          org_id: 'demo',
          session_id: 'sess-reporter',
          channel: 'web',
          chat_mode: true,
          allow_sql: true,
          team_role: 'member',
          is_admin: false,
        },
        line: 'cli',
      }),
    );
  const fromWorker = (text: string) => h.turn(h.message(text, { actor: { id: 'demo_worker', display_name: '维修工' } }));
  const openRows = async () =>
    (await db().query<{ ref: string; resolution: string | null }>('SELECT ref, resolution FROM skillgate.pending_replies ORDER BY id'))
      .rows;

  it('R-MSG-09 A-24 two open tickets for one worker: the reply naming the second ticket reaches the second, the next reply the first', async () => {
    const t1 = await openTicket('T-1001');
    const t2 = await openTicket('T-1002', { via_call_skill: true });
    expect(t1).toMatchObject({ ok: true, sent: { ok: true, sent: 1 }, wait: { ok: true, ref: 'T-1001' } });
    expect(t2).toMatchObject({ ok: true, wait: { ok: true, ref: 'T-1002' } });
    // send_message went through the outbox to the web adapter, addressed to the contact key
    const toWorker = h.adapter.sent.filter((s) => s.target.chat_id === 'demo_worker').map((s) => s.message.text);
    expect(toWorker).toEqual(['新工单 T-1001：3号机漏水', '新工单 T-1002：3号机漏水']);

    const first = JSON.stringify(await fromWorker('T-1002 修好了，换了阀门'));
    expect(first).toContain('工单 T-1002 收到回复：T-1002 修好了，换了阀门');
    expect(first).not.toContain('T-1001');
    expect(await openRows()).toEqual([
      { ref: 'T-1001', resolution: null },
      { ref: 'T-1002', resolution: 'consumed' },
    ]);

    const second = JSON.stringify(await fromWorker('完成了'));
    expect(second).toContain('工单 T-1001 收到回复：完成了');
    expect((await openRows()).map((r) => r.resolution)).toEqual(['consumed', 'consumed']);

    // nothing waits any more: the next message goes to normal handling (the planner)
    const third = JSON.stringify(await fromWorker('完成了'));
    expect(third).not.toContain('收到回复');
  });

  it('A-24 a reply after expiry goes to normal handling and the record stays unconsumed', async () => {
    await openTicket('T-2001', { expires_in_s: 60 });
    now = new Date(now.getTime() + 61_000);
    const out = JSON.stringify(await fromWorker('T-2001 好了'));
    expect(out).not.toContain('收到回复');
    expect(await openRows()).toEqual([{ ref: 'T-2001', resolution: null }]);
  });

  it('a /command bypasses the pending reply; 「取消」 cancels it instead of answering it', async () => {
    await openTicket('T-3001');
    const help = JSON.stringify(await fromWorker('/help'));
    expect(help).not.toContain('收到回复');
    expect(await openRows()).toEqual([{ ref: 'T-3001', resolution: null }]);
    const cancel = JSON.stringify(await fromWorker('取消'));
    expect(cancel).toContain('已取消等待中的回复（T-3001）');
    expect(await openRows()).toEqual([{ ref: 'T-3001', resolution: 'cancelled' }]);
  });

  it("another person's message never consumes the worker's record", async () => {
    await openTicket('T-4001');
    const out = JSON.stringify(await h.turn(h.message('T-4001 好了', { actor: { id: 'demo_reporter', display_name: '报修人' } })));
    expect(out).not.toContain('收到回复');
    expect(await openRows()).toEqual([{ ref: 'T-4001', resolution: null }]);
  });

  it('consumed once: two events racing for one record — exactly one wins; a redelivery of the winner may take it again', async () => {
    const reg = await registerPendingReply(
      db(),
      { to: WORKER, skill: 'ticket_reply', state: { ticket: 'T-5001' }, ref: 'T-5001' },
      { org_id: 'demo', role_id: 'default', session_id: 's', skill: 'x' },
      { now: clock },
    );
    expect(reg.ok).toBe(true);
    const id = reg.ok ? reg.id : '';
    const wins = await Promise.all(['ev-a', 'ev-b', 'ev-c', 'ev-d'].map((ev) => resolvePendingReply(db(), id, 'consumed', ev, now)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    const winner = ['ev-a', 'ev-b', 'ev-c', 'ev-d'][wins.indexOf(true)]!;
    expect(await resolvePendingReply(db(), id, 'consumed', winner, now)).toBe(true);
    expect(await resolvePendingReply(db(), id, 'consumed', 'ev-z', now)).toBe(false);
  });

  it('await_reply refuses a bad address, an unknown skill and an out-of-range expiry (no throw)', async () => {
    const origin = { org_id: 'demo', role_id: 'default', session_id: 's', skill: 'x' };
    const skillExists = (n: string) => n === 'ticket_reply';
    expect(await registerPendingReply(db(), { to: 'nobody', skill: 'ticket_reply' }, origin, { skillExists })).toMatchObject({ ok: false });
    expect(await registerPendingReply(db(), { to: WORKER, skill: 'nope' }, origin, { skillExists })).toMatchObject({
      ok: false,
      error: '没有名为「nope」的技能',
    });
    expect(await registerPendingReply(db(), { to: WORKER, skill: 'ticket_reply', expires_in_s: 0 }, origin, { skillExists })).toMatchObject(
      { ok: false },
    );
    expect(await openRows()).toEqual([]);
  });

  it('refs are matched as whole tokens (T-10 does not match T-100; no spaces needed in Chinese)', () => {
    expect(namesRef('T-100 修好了', 'T-10')).toBe(false);
    expect(namesRef('工单T-10修好了', 'T-10')).toBe(true);
    expect(namesRef('AT-10 ok', 'T-10')).toBe(false);
    expect(namesRef('工单 T-10 修好了', 'T-10')).toBe(true);
    const rec = (ref: string) => ({ ref }) as never;
    expect(pickPendingReply([rec('T-100'), rec('T-10')], 'T-10 ok')).toEqual({ ref: 'T-10' });
    expect(pickPendingReply([rec('T-100'), rec('T-10')], 'ok')).toEqual({ ref: 'T-100' });
  });
});
