/**
 * A stop is acted on by the intake at once and not stored (src/inbox/intake.ts): its repeats —
 * a platform's redelivery of the same update, a client resending the same `client_msg_id` —
 * are duplicates, even while the first copy's stop is still under way, so the second copy
 * neither stops anything nor tells the user "nothing is running".
 */
import { expect, it } from 'vitest';
import { createIntake } from '../../src/inbox/intake.ts';
import type { Queryable } from '../../src/store/db.ts';
import { captureLog, inbound, latch } from './helpers.ts';

type Parsed = { stop: boolean };

function intake(opts: { running: () => boolean }) {
  const notices: string[] = [];
  const stops: string[] = [];
  const stored: string[] = [];
  const gate = latch();
  const host = createIntake<Parsed>({
    db: {} as Queryable,
    log: captureLog().log,
    inbox: {
      receive: async (msg) => {
        stored.push(msg.dedupe_key);
        return 'accepted';
      },
      processing: async () => false,
    },
    outbox: {
      enqueue: async (_q, items) => {
        for (const i of items) notices.push(i.message.text);
        return items.map((_, k) => String(k));
      },
    },
    parse: (msg) => ({ stop: msg.raw_input === '/stop' }),
    isStop: (p) => p.stop,
    stop: async (chatKey) => {
      stops.push(chatKey);
      await gate.promise; // the first copy's stop is still under way when the repeat comes
      return opts.running();
    },
    replicas: false,
    nothingRunning: () => '当前没有正在执行的任务。',
  });
  return { host, notices, stops, stored, release: gate.resolve };
}

it('a stop sent again (the same event) while the first copy stops the turn is a duplicate: one stop, no notice', async () => {
  let running = true;
  const t = intake({ running: () => running });
  const first = t.host.receive(inbound('c1', 'stop-1', '/stop'));
  const again = await Promise.all([t.host.receive(inbound('c1', 'stop-1', '/stop')), t.host.receive(inbound('c1', 'stop-1', '/stop'))]);
  expect(again).toEqual(['duplicate', 'duplicate']);
  t.release();
  expect(await first).toBe('accepted');
  running = false;
  // After the turn stopped, the same event once more: still a duplicate, still no "nothing running".
  expect(await t.host.receive(inbound('c1', 'stop-1', '/stop'))).toBe('duplicate');
  expect(t.stops).toEqual(['telegram:default:c1']);
  expect(t.notices).toEqual([]);
  expect(t.stored).toEqual([]);
});

it('a new stop event (another update) is acted on again, and told when nothing runs', async () => {
  const t = intake({ running: () => false });
  t.release();
  expect(await t.host.receive(inbound('c1', 'stop-1', '/stop'))).toBe('accepted');
  expect(await t.host.receive(inbound('c1', 'stop-2', '/stop'))).toBe('accepted');
  expect(t.stops).toEqual(['telegram:default:c1', 'telegram:default:c1']);
  expect(t.notices).toEqual(['当前没有正在执行的任务。', '当前没有正在执行的任务。']);
  // Anything else still goes to the inbox, repeats included (the inbox decides duplicates).
  expect(await t.host.receive(inbound('c1', 'm-1', 'hello'))).toBe('accepted');
  expect(t.stored).toEqual(['telegram:update:m-1']);
});
