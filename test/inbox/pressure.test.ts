/**
 * The memory guard (docs/operations-delivery.md "Memory and event-loop guards"): under memory
 * pressure the inbox still stores and acknowledges events but takes no new turns; once the
 * pressure drops the stored events run. Heap readings are driven; the inbox and database are real.
 */
import { beforeAll, expect, it } from 'vitest';
import { createMetrics } from '../../src/http/metrics.ts';
import { createInbox, type InboxEvent } from '../../src/inbox/index.ts';
import { pressureFromEnv, PRESSURE_DEFAULTS, startMemoryGuard, v8Heap } from '../../src/inbox/pressure.ts';
import { migrate } from '../../src/store/migrate.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { captureLog, inbound, until } from './helpers.ts';

it('thresholds: 0.85 / 0.75 by default; SKILLGATE_MEMORY_PAUSE_AT and _RESUME_AT; bad values name the variable', () => {
  expect(pressureFromEnv({})).toEqual(PRESSURE_DEFAULTS);
  expect(pressureFromEnv({ SKILLGATE_MEMORY_PAUSE_AT: '0.7' })).toEqual({ pauseAt: 0.7, resumeAt: expect.closeTo(0.6, 10) });
  expect(pressureFromEnv({ SKILLGATE_MEMORY_PAUSE_AT: '0.9', SKILLGATE_MEMORY_RESUME_AT: '0.5' })).toEqual({ pauseAt: 0.9, resumeAt: 0.5 });
  expect(() => pressureFromEnv({ SKILLGATE_MEMORY_PAUSE_AT: 'high' })).toThrow(/SKILLGATE_MEMORY_PAUSE_AT/);
  expect(() => pressureFromEnv({ SKILLGATE_MEMORY_PAUSE_AT: '0.5', SKILLGATE_MEMORY_RESUME_AT: '0.6' })).toThrow(
    /SKILLGATE_MEMORY_RESUME_AT/,
  );
  const h = v8Heap();
  expect(h.used).toBeGreaterThan(0);
  expect(h.limit).toBeGreaterThan(h.used);
});

it('/metrics has heap used and limit, memory pressure, and the event-loop delay p99', async () => {
  let pressured = true;
  const m = createMetrics({}, { heap: () => ({ used: 900, limit: 1000 }), pressured: () => pressured });
  let text = await m.registry.metrics();
  expect(text).toMatch(/^skillgate_heap_used_bytes 900$/m);
  expect(text).toMatch(/^skillgate_heap_limit_bytes 1000$/m);
  expect(text).toMatch(/^skillgate_memory_pressure 1$/m);
  expect(text).toMatch(/^skillgate_nodejs_eventloop_lag_p99_seconds \d/m);
  pressured = false;
  text = await m.registry.metrics();
  expect(text).toMatch(/^skillgate_memory_pressure 0$/m);
});

describeEachEngine('inbox under memory pressure', (db) => {
  beforeAll(async () => {
    await migrate(db());
  });

  it('over the threshold events are stored but not run; below the resume threshold they run, in order', async () => {
    await db().query('TRUNCATE skillgate.inbox_events');
    const { log, lines } = captureLog();
    let used = 900;
    const guard = startMemoryGuard({
      thresholds: { pauseAt: 0.85, resumeAt: 0.75 },
      log,
      heap: () => ({ used, limit: 1000 }),
      sampleMs: 3_600_000,
    });
    const inbox = createInbox(db(), { log, pollMs: 50, admit: () => !guard.pressured() });
    const seen: InboxEvent[] = [];
    inbox.start(async (ev) => void seen.push(ev), { concurrency: 4 });
    try {
      expect(guard.pressured()).toBe(true);
      for (const k of ['m1', 'm2', 'm3']) expect(await inbox.receive(inbound('chat1', k))).toBe('accepted');
      expect(await inbox.receive(inbound('chat2', 'm4'))).toBe('accepted');
      // Several polls pass: nothing is taken.
      await new Promise((r) => setTimeout(r, 400));
      expect(seen).toEqual([]);
      const stored = await db().query<{ status: string }>('SELECT status FROM skillgate.inbox_events ORDER BY id');
      expect(stored.rows.map((r) => r.status)).toEqual(['received', 'received', 'received', 'received']);
      // 80 %: below the pause line but above the resume line — still paused (hysteresis).
      used = 800;
      guard.sample();
      expect(guard.pressured()).toBe(true);
      used = 700;
      guard.sample();
      expect(guard.pressured()).toBe(false);
      await until(() => seen.length === 4, 'the stored events run');
      expect(seen.filter((e) => e.message.chat.id === 'chat1').map((e) => e.message.dedupe_key)).toEqual([
        'telegram:update:m1',
        'telegram:update:m2',
        'telegram:update:m3',
      ]);
      expect(lines().some((l) => /memory pressure: the inbox takes no new turns/.test(String(l.msg)))).toBe(true);
      expect(lines().some((l) => /memory pressure over/.test(String(l.msg)))).toBe(true);
    } finally {
      await inbox.stop();
      guard.stop();
    }
  });
});
