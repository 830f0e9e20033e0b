/**
 * The sockets of each conversation on this replica, and delivery of stored frames to them in
 * seq order with no gap and no repeat. Each socket remembers the last seq it was sent; a new
 * frame that is exactly the next one goes out directly, anything else (a frame that arrived
 * through another replica out of order, a replay) is read back from `skillgate.web_frames`.
 * Deliveries of one socket are serialized on a promise chain.
 *
 * Across replicas: the sender notifies `skillgate_web` with `{c, s, r}` (conversation, seq,
 * replica); every other replica with a socket of that conversation catches it up from the table.
 */
import { randomBytes } from 'node:crypto';
import { createBatcher, type Db } from '../../src/channel/index.ts';
import type { Logger } from '../../src/log/logger.ts';
import { appendFrames, framesAfter, type AppendArgs } from './frames.ts';
import type { ServerFrame, StoredFrame, StoredFrameBody } from './wire.ts';

/** The LISTEN/NOTIFY channel of web pushes. */
export const NOTIFY_CHANNEL = 'skillgate_web';

/** One authenticated socket as the hub sees it. */
export interface HubConn {
  readonly conversationId: string;
  /** Highest seq sent on this socket. */
  deliveredSeq: number;
  /** Serializes this socket's deliveries. */
  chain: Promise<void>;
  /** Write one frame (JSON text); false when the socket is no longer open. */
  write(frame: ServerFrame): boolean;
}

/** The per-replica registry of conversation sockets. */
export class WebHub {
  readonly replicaId = randomBytes(8).toString('hex');
  readonly #conns = new Map<string, Set<HubConn>>();
  #unlisten: (() => Promise<void>) | undefined;
  /** Frames stored at the same time share one statement (src/channel/batch.ts). */
  readonly #appends;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {
    this.#appends = createBatcher<AppendArgs, StoredFrame>((items) => appendFrames(db.relaxed, items));
  }

  /** Subscribe to other replicas' pushes. @throws the database error. */
  async start(): Promise<void> {
    this.#unlisten ??= await this.db.listen(NOTIFY_CHANNEL, (payload) => this.#onNotify(payload));
  }

  /** Unsubscribe. */
  async stop(): Promise<void> {
    const u = this.#unlisten;
    this.#unlisten = undefined;
    await u?.();
  }

  add(conn: HubConn): void {
    let set = this.#conns.get(conn.conversationId);
    if (!set) this.#conns.set(conn.conversationId, (set = new Set()));
    set.add(conn);
  }

  remove(conn: HubConn): void {
    const set = this.#conns.get(conn.conversationId);
    set?.delete(conn);
    if (set && set.size === 0) this.#conns.delete(conn.conversationId);
  }

  /** The sockets of a conversation on this replica. */
  connsOf(conversationId: string): HubConn[] {
    return [...(this.#conns.get(conversationId) ?? [])];
  }

  /** Every socket on this replica. */
  all(): HubConn[] {
    return [...this.#conns.values()].flatMap((s) => [...s]);
  }

  /** Queue work on a socket's chain (errors are logged, the chain goes on). */
  enqueue(conn: HubConn, work: () => Promise<void>): Promise<void> {
    conn.chain = conn.chain.then(work).catch((err: unknown) => {
      this.log.warn({ err: (err as Error).message, conversation_id: conn.conversationId }, 'web: delivery to a socket failed');
    });
    return conn.chain;
  }

  /** Send every stored frame after the socket's `deliveredSeq`, in order. */
  async catchUp(conn: HubConn): Promise<void> {
    for (;;) {
      const frames = await framesAfter(this.db, conn.conversationId, conn.deliveredSeq, 500);
      for (const f of frames) {
        if (f.seq <= conn.deliveredSeq) continue;
        if (!conn.write(f)) return;
        conn.deliveredSeq = f.seq;
      }
      if (frames.length < 500) return;
    }
  }

  /**
   * Store a frame ({@link appendFrame}) and publish it, then show `thenStatus` (a transient
   * `status` frame) on every replica: on a server the storing statement itself tells the other
   * replicas both (one statement, not three). @throws the database error.
   */
  async append(
    args: { conversationId: string; orgId: string; contactKey: string; body: StoredFrameBody; nowMs: number; outboxKey?: string | null },
    thenStatus?: ServerFrame,
  ): Promise<StoredFrame> {
    const server = this.db.engine === 'server';
    const notify = server ? { channel: NOTIFY_CHANNEL, replica: this.replicaId, ...(thenStatus ? { status: thenStatus } : {}) } : undefined;
    const frame = await this.#appends.submit(notify ? Object.assign({}, args, { notify }) : args);
    await this.publish(frame, server);
    if (thenStatus) {
      if (server) this.broadcastTransient(args.conversationId, thenStatus);
      else await this.publishTransient(args.conversationId, thenStatus);
    }
    return frame;
  }

  /**
   * Deliver a frame just stored on this replica to local sockets and tell the other replicas
   * (unless `notified`: its storing statement did).
   */
  async publish(frame: StoredFrame, notified = false): Promise<void> {
    for (const conn of this.connsOf(frame.conversation_id)) this.#deliver(conn, frame);
    if (notified) return;
    try {
      await this.db.notify(NOTIFY_CHANNEL, JSON.stringify({ c: frame.conversation_id, s: frame.seq, r: this.replicaId }));
    } catch (err) {
      // Local sockets have it; remote ones catch up on their next frame or reconnect.
      this.log.warn({ err: (err as Error).message }, 'web: cross-replica notify failed');
    }
  }

  /** Send a transient frame (not stored) to every local socket of a conversation. */
  broadcastTransient(conversationId: string, frame: ServerFrame): void {
    for (const conn of this.connsOf(conversationId)) void this.enqueue(conn, async () => void conn.write(frame));
  }

  /**
   * Send a transient frame to the conversation's sockets here and, through the NOTIFY
   * payload itself (kept under 7 000 bytes), on the other replicas. Best effort.
   */
  async publishTransient(conversationId: string, frame: ServerFrame): Promise<void> {
    this.broadcastTransient(conversationId, frame);
    const payload = JSON.stringify({ c: conversationId, r: this.replicaId, f: frame });
    if (Buffer.byteLength(payload) > 7000) return;
    try {
      await this.db.notify(NOTIFY_CHANNEL, payload);
    } catch (err) {
      this.log.debug({ err: (err as Error).message }, 'web: cross-replica status notify failed');
    }
  }

  #deliver(conn: HubConn, frame: StoredFrame | null): void {
    void this.enqueue(conn, async () => {
      if (frame && frame.seq <= conn.deliveredSeq) return;
      if (frame && frame.seq === conn.deliveredSeq + 1) {
        if (conn.write(frame)) conn.deliveredSeq = frame.seq;
        return;
      }
      await this.catchUp(conn);
    });
  }

  #onNotify(payload: string): void {
    let p: { c?: unknown; s?: unknown; r?: unknown; f?: unknown };
    try {
      p = JSON.parse(payload) as typeof p;
    } catch {
      return;
    }
    if (p.r === this.replicaId || typeof p.c !== 'string') return;
    if (p.f !== undefined) {
      const f = p.f as ServerFrame;
      if (typeof f === 'object' && f !== null && f.type === 'status') this.broadcastTransient(p.c, f);
    }
    // a stored frame's push (it may carry a status frame too, see append)
    if (typeof p.s !== 'number') return;
    const seq = p.s;
    for (const conn of this.connsOf(p.c)) {
      if (seq > conn.deliveredSeq) this.#deliver(conn, null);
    }
  }
}
