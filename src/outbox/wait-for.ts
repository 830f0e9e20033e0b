/**
 * `Outbox.waitFor` (docs/configuration.md §10 send_message): wait for a message's final state,
 * woken by this process's own final states and, for other processes', by a poll.
 */
import type { EventEmitter } from 'node:events';
import type { Queryable } from '../store/db.ts';
import { selectMessage } from './store.ts';
import type { OutboxClock } from './types.ts';

/**
 * Wait up to `timeoutMs` (outbox clock) for message `id` to be `sent` or `failed` (`discarded`
 * counts as failed). `finals` emits `('final', id)` for this process's final states; other
 * processes' are seen every `pollMs`. @returns the final state, or `queued` at the deadline
 * @throws Error when no message has this id
 */
export async function waitForFinal(
  db: Queryable,
  finals: EventEmitter,
  clock: OutboxClock,
  pollMs: number,
  id: string,
  timeoutMs: number,
): Promise<'sent' | 'failed' | 'queued'> {
  const deadline = clock.now() + Math.max(0, timeoutMs);
  let finished = false;
  let poke: (() => void) | undefined;
  const onFinal = (fid: string): void => {
    if (fid !== id) return;
    finished = true;
    poke?.();
  };
  finals.on('final', onFinal);
  try {
    for (;;) {
      const rec = await selectMessage(db, id);
      if (!rec) throw new Error(`no outbox message ${id}`);
      if (rec.status === 'sent' || rec.status === 'failed') return rec.status;
      if (rec.status === 'discarded') return 'failed';
      const left = deadline - clock.now();
      if (left <= 0) return 'queued';
      if (!finished) {
        await new Promise<void>((resolve) => {
          poke = resolve;
          void clock.sleep(Math.min(left, pollMs)).then(resolve);
        });
      }
      poke = undefined;
      finished = false;
    }
  } finally {
    finals.off('final', onFinal);
  }
}
