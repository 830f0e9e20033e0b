/**
 * The gateway session kept across restarts and takeovers (docs/operations-delivery.md "Resuming
 * a long connection"). The session (id, last sequence, resume URL) lives on the lease row of the
 * account's shard through the host's fenced {@link ConnectionState}; a started client RESUMEs it
 * and Discord replays the dispatches it missed (the inbox's dedup by message id swallows the few
 * it had already stored). An invalid session (op 9 `d: false`) clears it and identifies anew.
 *
 * The stored sequence is that of the last dispatch handed to the inbox, not the last received:
 * a frame received but not yet stored when the process dies is replayed. The transport tries a
 * dispatch the inbox could not store again before any later one (transport-gateway.ts); one it
 * gives up (the lease lost, a stop) holds the stored sequence back until the session ends, and
 * nothing after it is stored, so the next start's RESUME replays them all in order. Writes are
 * batched: at most one per `flushMs` while dispatches flow, one at close; a null (invalid
 * session) at once.
 *
 * How it plugs into discord.js 14.28: discord.js builds @discordjs/ws's WebSocketManager itself
 * (node_modules/discord.js/src/client/websocket/WebSocketManager.js `connect`) and sets
 * `retrieveSessionInfo` / `updateSessionInfo` to its own per-shard field; of `ClientOptions.ws`
 * it forwards only `buildStrategy` and `buildIdentifyThrottler`, so `new Client({ ws: {
 * retrieveSessionInfo } })` is ignored. `buildStrategy` is called by the manager's constructor
 * with the manager, after its options are set: {@link SessionKeeper.buildStrategy} puts our two
 * functions into `manager.options` there (SimpleContextFetchingStrategy reads them from the
 * manager on every call) and still mirrors each update into discord.js's own field, which its
 * RESUMED handler reads.
 */
import { CloseCodes, SimpleShardingStrategy, type IShardingStrategy, type SessionInfo, type WebSocketOptions } from 'discord.js';
import type { ConnectionState } from '../../src/channel/index.ts';
import type { Logger } from '../../src/log/logger.ts';

/** @discordjs/ws's WebSocketManager (discord.js exports its own class under that name). */
type WsManager = Parameters<NonNullable<WebSocketOptions['buildStrategy']>>[0];

/** The stored form: plain JSON on the lease row. */
interface StoredSession {
  session_id: string;
  seq: number;
  resume_url: string;
  shard_id: number;
  shard_count: number;
}

/** The session in `value` when it is a stored session of shard `shardId`, else null. */
export function sessionFromStored(value: unknown, shardId: number): SessionInfo | null {
  const v = value as Partial<StoredSession> | null;
  if (!v || typeof v !== 'object') return null;
  if (typeof v.session_id !== 'string' || v.session_id === '' || typeof v.resume_url !== 'string') return null;
  if (!Number.isInteger(v.seq) || !Number.isInteger(v.shard_count) || v.shard_id !== shardId) return null;
  return { sessionId: v.session_id, sequence: v.seq!, resumeURL: v.resume_url, shardId, shardCount: v.shard_count! };
}

function storedOf(s: SessionInfo, seq: number): StoredSession {
  return { session_id: s.sessionId, seq, resume_url: s.resumeURL, shard_id: s.shardId, shard_count: s.shardCount };
}

/** One shard's session: what discord.js reads and updates, and what is written to the host. */
export class SessionKeeper {
  readonly #state: ConnectionState;
  readonly #shardId: number;
  readonly #log: Logger;
  readonly #flushMs: number;
  /** discord.js's current session of the shard (its sequence is the last received). */
  #info: SessionInfo | null = null;
  /** The last sequence handed to the inbox in the session {@link #info}. */
  #safeSeq = 0;
  /** A dispatch of this session could not be stored: the stored sequence stays before it. */
  #held = false;
  #dirty = false;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  /** Closing: the session is kept for the next start (our own close's null is not stored). */
  #closing = false;
  /** The lease is gone: nothing more is written. */
  #fenced = false;
  /** discord.js's own field holds the loaded session too. */
  #mirrored = false;

  constructor(p: { state: ConnectionState; shardId?: number; log: Logger; flushMs?: number }) {
    this.#state = p.state;
    this.#shardId = p.shardId ?? 0;
    this.#log = p.log;
    this.#flushMs = p.flushMs ?? 1000;
  }

  /** Read the stored session (before login). A read failure means identifying anew. */
  async load(): Promise<SessionInfo | null> {
    try {
      const s = sessionFromStored(await this.#state.load(), this.#shardId);
      if (s) {
        this.#info = s;
        this.#safeSeq = s.sequence;
        this.#log.info({ session_id: s.sessionId, seq: s.sequence }, 'discord: resuming the stored gateway session');
      }
      return s;
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, 'discord: stored gateway session unreadable; identifying anew');
      return null;
    }
  }

  /** The session id dispatches arrive in now (tag a dispatch with it when it is received). */
  sessionId(): string | null {
    return this.#info?.sessionId ?? null;
  }

  /** The dispatch with sequence `seq` of session `sessionId` was handed to the inbox (`stored`) or not. */
  handled(sessionId: string | null, seq: unknown, stored: boolean): void {
    if (sessionId === null || sessionId !== this.#info?.sessionId || this.#held) return;
    if (!stored) {
      this.#held = true;
      return;
    }
    if (typeof seq !== 'number' || !Number.isInteger(seq) || seq <= this.#safeSeq) return;
    this.#safeSeq = seq;
    this.#mark();
  }

  /** The `ws.buildStrategy` client option (see the module comment). */
  buildStrategy = (manager: WsManager): IShardingStrategy => {
    const own = { retrieve: manager.options.retrieveSessionInfo, update: manager.options.updateSessionInfo };
    Object.assign(manager.options, {
      retrieveSessionInfo: (shardId: number) => {
        if (shardId !== this.#shardId) return own.retrieve(shardId);
        if (!this.#mirrored && this.#info) this.#mirrored = mirror(() => own.update(shardId, this.#info));
        return this.#info;
      },
      updateSessionInfo: (shardId: number, info: SessionInfo | null) => {
        own.update(shardId, info);
        if (shardId === this.#shardId) this.#update(info);
      },
    });
    return new KeepSessionOnClose(new SimpleShardingStrategy(manager), () => this.#closing);
  };

  /** From now on the session is kept for the next start: our own close does not clear it. */
  close(): void {
    this.#closing = true;
  }

  /** Write what is pending (at close). Never throws. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#writing;
    if (this.#dirty) await this.#write();
  }

  #update(info: SessionInfo | null): void {
    if (this.#closing) return;
    if (info === null) {
      if (this.#info === null) return;
      this.#info = null;
      this.#held = false;
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#dirty = true;
      void this.#write();
      return;
    }
    const fresh = info.sessionId !== this.#info?.sessionId;
    this.#info = info;
    if (fresh) {
      // A new session (READY): nothing of it is owed yet beyond READY itself.
      this.#safeSeq = info.sequence;
      this.#held = false;
      this.#mark();
    }
  }

  #mark(): void {
    this.#dirty = true;
    if (this.#timer || this.#fenced) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#write();
    }, this.#flushMs);
    this.#timer.unref();
  }

  /** Write the current session (one write at a time; each writes what is current when it runs). */
  #write(): Promise<void> {
    this.#writing = this.#writing.then(async () => {
      if (!this.#dirty || this.#fenced) return;
      this.#dirty = false;
      const value = this.#info ? storedOf(this.#info, this.#safeSeq) : null;
      try {
        if (!(await this.#state.save(value))) {
          this.#fenced = true;
          this.#log.info({}, 'discord: the lease moved on; the gateway session is no longer stored from here');
        } else if (value) this.#log.debug({ session_id: value.session_id, seq: value.seq }, 'discord: gateway session stored');
        else this.#log.info({}, 'discord: gateway session cleared (invalid session); identifying anew');
      } catch (err) {
        this.#dirty = true;
        this.#log.warn({ err: (err as Error).message }, 'discord: could not store the gateway session; retrying');
        if (!this.#closing) this.#mark();
      }
    });
    return this.#writing;
  }
}

/** Run discord.js's own update (its shard object exists once it connects). @returns whether it ran. */
function mirror(update: () => void): boolean {
  try {
    update();
    return true;
  } catch {
    return false;
  }
}

/**
 * The default strategy, except that a close while the session is kept uses a resumable close
 * code: Discord invalidates a session closed with 1000/1001, and discord.js closes with 1000.
 */
class KeepSessionOnClose implements IShardingStrategy {
  constructor(
    readonly inner: IShardingStrategy,
    readonly keeping: () => boolean,
  ) {}
  connect() {
    return this.inner.connect();
  }
  destroy(options?: Parameters<IShardingStrategy['destroy']>[0]) {
    return this.inner.destroy(this.keeping() ? { ...options, code: CloseCodes.Resuming, reason: 'restarting; resuming later' } : options);
  }
  fetchStatus() {
    return this.inner.fetchStatus();
  }
  send(shardId: number, payload: Parameters<IShardingStrategy['send']>[1]) {
    return this.inner.send(shardId, payload);
  }
  spawn(shardIds: number[]) {
    return this.inner.spawn(shardIds);
  }
}
