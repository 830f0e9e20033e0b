/**
 * The one-in-flight-per-chat rule (migration 0030, docs/pipeline.md "Per-chat order without
 * locks"): a statement that would leave two events of a chat `processing`, or two messages of
 * a chat `sending`, fails whole with an exclusion violation — another process took the chat first.
 */

/** True for that failure (SQLSTATE 23P01): the statement changed nothing. */
export function isChatTaken(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === '23P01';
}

/**
 * Run a claim; when a chat of its selection was taken meanwhile, once more (that chat is no
 * head now); a second loss gives `lost`.
 */
export async function claimOnceMore<T>(claim: () => Promise<T>, lost: T): Promise<T> {
  try {
    return await claim();
  } catch (err) {
    if (!isChatTaken(err)) throw err;
    return claim().catch((again: unknown) => {
      if (isChatTaken(again)) return lost;
      throw again;
    });
  }
}
