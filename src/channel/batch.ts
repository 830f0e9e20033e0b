/**
 * Group commit without waiting: a write goes out at the end of the event-loop turn it was
 * submitted in (`setImmediate`), together with every write submitted in that turn; writes
 * submitted while a flush is in flight are sent together as the next statement, and so on. An
 * idle process pays no delay; a busy one pays one statement (one commit) per batch instead of
 * one per write (docs/pipeline.md "Group commit"). Here with the adapter contract because an
 * adapter uses it too (the web channel's frame appends), as the outbox does (its delivery marks).
 */

/** Submits writes that are flushed in batches. */
export interface Batcher<T, R> {
  /** Queue `item`; resolves with its result once its batch committed, rejects with the batch's error. */
  submit(item: T): Promise<R>;
}

/**
 * @param flush writes a batch in one statement; returns one result per item, in item order.
 * @param max most items per batch (default 500).
 */
export function createBatcher<T, R>(flush: (items: T[]) => Promise<R[]>, max = 500): Batcher<T, R> {
  let queue: { item: T; resolve: (r: R) => void; reject: (err: unknown) => void }[] = [];
  // biome-ignore lint/correctness/noUnusedVariables: read by the `??=` in submit (one drain at a time)
  let running: Promise<void> | null = null;

  const drain = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue.slice(0, max);
      queue = queue.slice(batch.length);
      try {
        const results = await flush(batch.map((b) => b.item));
        for (const [i, b] of batch.entries()) b.resolve(results[i]!);
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    running = null;
  };

  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        running ??= new Promise<void>((started) => setImmediate(started)).then(drain);
      });
    },
  };
}
