/**
 * The countdown example leaves no listener behind on its abort signal: one per second piled
 * up (Node's MaxListenersExceededWarning after ten seconds, seen on every Ctrl-C of a long
 * countdown). Fake timers drive the seconds.
 */
import { getEventListeners } from 'node:events';
import { afterEach, expect, it, vi } from 'vitest';
import { execute } from '../../skills/examples/countdown/handler.ts';

afterEach(() => void vi.useRealTimers());

it('a 12-second countdown keeps at most one abort listener and none once done', async () => {
  vi.useFakeTimers();
  const controller = new AbortController();
  const run = execute({ seconds: 12 }, { abort_signal: controller.signal });
  let most = 0;
  for (let s = 0; s < 12; s++) {
    most = Math.max(most, getEventListeners(controller.signal, 'abort').length);
    await vi.advanceTimersByTimeAsync(1000);
  }
  const result = await run;
  expect(result).toMatchObject({ completed: 12, stopped: false });
  expect(most).toBe(1);
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
});

it('a stop ends it at once with what was done, and removes its listener', async () => {
  vi.useFakeTimers();
  const controller = new AbortController();
  const run = execute({ seconds: 30 }, { abort_signal: controller.signal });
  await vi.advanceTimersByTimeAsync(3000);
  controller.abort();
  const result = await run;
  expect(result).toMatchObject({ completed: 3, stopped: true });
  expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
});
