/**
 * Running turns and the user's stop: one AbortController per chat while its turn
 * runs. 「停止」 / `/stop` / the web stop button abort it; the signal reaches the skill as
 * `abort_signal` and the turn ends with what was done so far. On a real server a stop that
 * arrives at another replica is relayed with NOTIFY `skillgate_stop` (payload: the chat key).
 */
import type { Db } from '../store/db.ts';

/** The stop channel name (LISTEN/NOTIFY). */
export const STOP_CHANNEL = 'skillgate_stop';

/** The abort reason of turns a bounded stop gave up on (docs/recovery.md): such a turn records nothing. */
export class GatewayStoppingError extends Error {
  constructor() {
    super('the gateway is stopping; the turn is taken over at the next start');
    this.name = 'GatewayStoppingError';
  }
}

/** True when `signal` was aborted by a stopping gateway (not by the user). */
export function stoppedByShutdown(signal: AbortSignal): boolean {
  return signal.aborted && signal.reason instanceof GatewayStoppingError;
}

/** A running turn as a stop reports it. */
export interface RunningTurnInfo {
  chat_key: string;
  event_id: string;
  /** Skills whose call is running now (usually one). */
  skills: string[];
}

interface Entry {
  controller: AbortController;
  eventId: string;
  skills: string[];
}

/** Registry of this process's running turns. */
export class RunningTurns {
  readonly #turns = new Map<string, Entry>();
  #unlisten: (() => Promise<void>) | undefined;

  /**
   * Register a turn of `chatKey`; returns its signal, `calling(skill)` to note a skill call
   * for as long as it runs (the returned function ends it), and a release function.
   */
  begin(chatKey: string, eventId = ''): { signal: AbortSignal; calling(skill: string): () => void; end(): void } {
    const entry: Entry = { controller: new AbortController(), eventId, skills: [] };
    this.#turns.set(chatKey, entry);
    return {
      signal: entry.controller.signal,
      calling: (skill) => {
        entry.skills.push(skill);
        return () => {
          const i = entry.skills.indexOf(skill);
          if (i >= 0) entry.skills.splice(i, 1);
        };
      },
      end: () => {
        if (this.#turns.get(chatKey) === entry) this.#turns.delete(chatKey);
      },
    };
  }

  /** The turns running in this process, with the skills they are calling. */
  list(): RunningTurnInfo[] {
    return [...this.#turns].map(([chat_key, e]) => ({ chat_key, event_id: e.eventId, skills: [...e.skills] }));
  }

  /** Abort every running turn with {@link GatewayStoppingError} (the end of a bounded stop). */
  abortAll(): number {
    for (const e of this.#turns.values()) e.controller.abort(new GatewayStoppingError());
    return this.#turns.size;
  }

  /** True when a turn of `chatKey` runs in this process. */
  isRunning(chatKey: string): boolean {
    return this.#turns.has(chatKey);
  }

  /** Abort the local turn of `chatKey`; true when there was one. */
  stopLocal(chatKey: string, reason = 'stopped by the user'): boolean {
    const c = this.#turns.get(chatKey);
    if (!c) return false;
    c.controller.abort(new Error(reason));
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
