/**
 * Running turns and the user's stop: one AbortController per chat while its turn
 * runs. 「停止」 / `/stop` / the web stop button abort it; the signal reaches the skill as
 * `abort_signal` and the turn ends with what was done so far. On a real server a stop that
 * arrives at another replica is relayed with NOTIFY `skillgate_stop` (payload: the chat key).
 */
import type { Db } from '../store/db.ts';

/** The stop channel name (LISTEN/NOTIFY). */
export const STOP_CHANNEL = 'skillgate_stop';

/** Registry of this process's running turns. */
export class RunningTurns {
  readonly #turns = new Map<string, AbortController>();
  #unlisten: (() => Promise<void>) | undefined;

  /** Register a turn of `chatKey`; returns its signal and a release function. */
  begin(chatKey: string): { signal: AbortSignal; end(): void } {
    const controller = new AbortController();
    this.#turns.set(chatKey, controller);
    return {
      signal: controller.signal,
      end: () => {
        if (this.#turns.get(chatKey) === controller) this.#turns.delete(chatKey);
      },
    };
  }

  /** True when a turn of `chatKey` runs in this process. */
  isRunning(chatKey: string): boolean {
    return this.#turns.has(chatKey);
  }

  /** Abort the local turn of `chatKey`; true when there was one. */
  stopLocal(chatKey: string, reason = 'stopped by the user'): boolean {
    const c = this.#turns.get(chatKey);
    if (!c) return false;
    c.abort(new Error(reason));
    return true;
  }

  /**
   * Abort the turn of `chatKey` wherever it runs: here, and through NOTIFY on the other
   * replicas (in embedded mode notify is in-process, so the local listener handles it).
   * @returns true when a local turn was stopped (a remote one is not known here).
   */
  async stop(db: Db, chatKey: string): Promise<boolean> {
    const local = this.stopLocal(chatKey);
    if (db.engine === 'server') await db.notify(STOP_CHANNEL, chatKey).catch(() => undefined);
    return local;
  }

  /** Listen for stops relayed by other replicas. */
  async listen(db: Db): Promise<void> {
    if (db.engine !== 'server' || this.#unlisten) return;
    this.#unlisten = await db.listen(STOP_CHANNEL, (payload) => {
      this.stopLocal(payload);
    });
  }

  /** Stop listening; abort nothing (graceful shutdown lets turns finish). */
  async close(): Promise<void> {
    await this.#unlisten?.();
    this.#unlisten = undefined;
  }
}
