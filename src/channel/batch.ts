/**
 * Group commit without waiting: a write goes out at the end of the event-loop turn it was
 * submitted in (`setImmediate`), together with every write submitted in that turn; writes
 * submitted while a flush is in flight are sent together as the next statement, and so on. An
 * idle process pays no delay; a busy one pays one statement (one commit) per batch instead of
 * one per write (docs/pipeline.md "Group commit"). Here with the adapter contract because an
 * adapter uses it too (the web channel's frame appends), as the outbox does (its delivery marks)
 * and the inbox (its events).
 */

/** Submits writes that are flushed in batches. */
export interface Batcher<T, R> {
  /** Queue `item`; resolves with its result once its batch committed, rejects with the batch's error. */
  submit(item: T): Promise<R>;
}

/** How a {@link createBatcher} forms and sends its batches. */
export interface BatcherOptions<T> {
  /** Most items per batch (default 500). */
  max?: number;
  /** Batches on their way at once (default 1). */
  inFlight?: number;
  /**
   * Wait for the end of the event loop's turn before sending (default true). False: an item
   * submitted while fewer than `inFlight` batches are on their way goes at once.
   */
  gather?: boolean;
  /**
   * Keys of which a batch holds at most one item each (e.g. a chat): a later item with a key
   * already in the batch, or in a batch still on its way, waits for a batch sent after that one
   * finished, so items of one key commit in submission order.
   */
  keysOf?: (item: T) => readonly string[];
}

interface Waiting<T, R> {
  item: T;
  resolve: (r: R) => void;
  reject: (err: unknown) => void;
}

/**
 * @param flush writes a batch in one statement; returns one result per item, in item order.
 * @param opts the most items per batch, or {@link BatcherOptions}.
 */
export function createBatcher<T, R>(flush: (items: T[]) => Promise<R[]>, opts: number | BatcherOptions<T> = {}): Batcher<T, R> {
  const o: BatcherOptions<T> = typeof opts === 'number' ? { max: opts } : opts;
  const max = o.max ?? 500;
  const inFlight = Math.max(1, o.inFlight ?? 1);
  const gather = o.gather ?? true;
  const keysOf = o.keysOf;
  const queue: Waiting<T, R>[] = [];
  let busy = 0;
  let scheduled = false;
  /** Keys of the items in batches on their way (never two batches with one key). */
  const flying = new Set<string>();

  /** The next batch, in queue order, at most one item per key, none of a key on its way. */
  const take = (): Waiting<T, R>[] => {
    if (!keysOf) return queue.splice(0, max);
    const seen = new Set<string>(flying);
    const batch: Waiting<T, R>[] = [];
    for (let i = 0; i < queue.length && batch.length < max; ) {
      const keys = keysOf(queue[i]!.item);
      if (keys.some((k) => seen.has(k))) {
        i++;
        continue;
      }
      for (const k of keys) seen.add(k);
      batch.push(...queue.splice(i, 1));
    }
    return batch;
  };

  const send = async (batch: Waiting<T, R>[]): Promise<void> => {
    try {
      const results = await flush(batch.map((b) => b.item));
      for (const [i, b] of batch.entries()) b.resolve(results[i]!);
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  };

  const pump = (): void => {
    while (busy < inFlight && queue.length > 0) {
      const batch = take();
      // Every waiting item's key is on its way: the batch that finishes pumps again.
      if (batch.length === 0) return;
      const keys = keysOf ? batch.flatMap((b) => keysOf(b.item)) : [];
      for (const k of keys) flying.add(k);
      busy++;
      void send(batch).finally(() => {
        for (const k of keys) flying.delete(k);
        busy--;
        pump();
      });
    }
  };

  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (!gather) pump();
        else if (!scheduled && busy < inFlight) {
          scheduled = true;
          setImmediate(() => {
            scheduled = false;
            pump();
          });
        }
      });
    },
  };
}
