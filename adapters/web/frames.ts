/**
 * Stored server frames (`skillgate.web_frames`) and conversations (`skillgate.web_conversations`):
 * every frame that must survive a reconnect gets the next `seq` of its conversation, assigned
 * atomically in the same statement that stores it (the conversation row is the counter, its
 * row lock orders concurrent senders, so seq order is commit order).
 */
import type { Queryable } from '../../src/store/db.ts';
import { PROTOCOL_VERSION, type ServerFrame, type StoredFrame, type StoredFrameBody } from './wire.ts';

/** Make sure the conversation row of a contact exists (at hello). @throws the database error. */
export async function ensureConversation(q: Queryable, conversationId: string, orgId: string, contactKey: string): Promise<void> {
  await q.query(
    `INSERT INTO skillgate.web_conversations (conversation_id, org_id, contact_key) VALUES ($1, $2, $3)
     ON CONFLICT (conversation_id) DO NOTHING`,
    [conversationId, orgId, contactKey],
  );
}

/** The owner of a conversation, or null when it was never opened. @throws the database error. */
export async function conversationOwner(q: Queryable, conversationId: string): Promise<{ orgId: string; contactKey: string } | null> {
  const { rows } = await q.query<{ org_id: string; contact_key: string }>(
    `SELECT org_id, contact_key FROM skillgate.web_conversations WHERE conversation_id = $1`,
    [conversationId],
  );
  return rows[0] ? { orgId: rows[0].org_id, contactKey: rows[0].contact_key } : null;
}

/** The newest seq of a conversation (0 when none). @throws the database error. */
export async function lastSeq(q: Queryable, conversationId: string): Promise<number> {
  const { rows } = await q.query<{ last_seq: string }>(
    `SELECT last_seq::text AS last_seq FROM skillgate.web_conversations WHERE conversation_id = $1`,
    [conversationId],
  );
  return rows[0] ? Number(rows[0].last_seq) : 0;
}

/**
 * Store one frame with the next seq of its conversation (creating the conversation row when
 * a message reaches a contact that never opened the page). With `notify`, the same statement
 * sends `pg_notify(notify.channel, '{"c":…,"s":seq,"r":notify.replica[,"f":notify.status]}')` (the
 * hub's push to other replicas, with a transient status frame to show after it; a server delivers
 * it at commit), so the push costs no statement of its own.
 * @returns the stored frame with its envelope (`v, id, ts, seq, conversation_id`).
 * @throws the database error.
 */
export async function appendFrame(
  q: Queryable,
  args: {
    conversationId: string;
    orgId: string;
    contactKey: string;
    body: StoredFrameBody;
    nowMs: number;
    notify?: { channel: string; replica: string; status?: ServerFrame };
  },
): Promise<StoredFrame> {
  const ts = new Date(args.nowMs).toISOString();
  const { rows } = await q.query<{ seq: string }>(
    `WITH s AS (
       INSERT INTO skillgate.web_conversations (conversation_id, org_id, contact_key, last_seq) VALUES ($1, $2, $3, 1)
       ON CONFLICT (conversation_id) DO UPDATE SET last_seq = skillgate.web_conversations.last_seq + 1
       RETURNING last_seq
     )
     INSERT INTO skillgate.web_frames (conversation_id, seq, frame, created_at)
     SELECT $1, s.last_seq,
            $4::jsonb || jsonb_build_object('seq', s.last_seq, 'id', 's_' || s.last_seq::text), $5::timestamptz
       FROM s
     RETURNING seq::text AS seq,
               CASE WHEN $6::text IS NOT NULL
                    THEN pg_notify($6::text, ($7::jsonb || jsonb_build_object('c', conversation_id, 's', seq))::text) END AS notified`,
    [
      args.conversationId,
      args.orgId,
      args.contactKey,
      JSON.stringify({ v: PROTOCOL_VERSION, ts, conversation_id: args.conversationId, ...args.body }),
      ts,
      args.notify?.channel ?? null,
      args.notify ? JSON.stringify({ r: args.notify.replica, ...(args.notify.status ? { f: args.notify.status } : {}) }) : null,
    ],
  );
  const seq = Number(rows[0]!.seq);
  return { ...args.body, v: PROTOCOL_VERSION, id: `s_${seq}`, ts, seq, conversation_id: args.conversationId } as StoredFrame;
}

function toFrame(r: { frame: unknown }): StoredFrame {
  const f = (typeof r.frame === 'string' ? JSON.parse(r.frame) : r.frame) as StoredFrame;
  return { ...f, seq: Number(f.seq) };
}

/** Frames with seq > `afterSeq`, oldest first (at most `limit`). @throws the database error. */
export async function framesAfter(q: Queryable, conversationId: string, afterSeq: number, limit = 1000): Promise<StoredFrame[]> {
  const { rows } = await q.query<{ frame: unknown }>(
    `SELECT frame FROM skillgate.web_frames WHERE conversation_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [conversationId, afterSeq, limit],
  );
  return rows.map(toFrame);
}

/** The newest `count` frames, oldest first (the history of a fresh page). @throws the database error. */
export async function lastFrames(q: Queryable, conversationId: string, count: number): Promise<StoredFrame[]> {
  const { rows } = await q.query<{ frame: unknown }>(
    `SELECT frame FROM (
       SELECT frame, seq FROM skillgate.web_frames WHERE conversation_id = $1 ORDER BY seq DESC LIMIT $2
     ) t ORDER BY seq`,
    [conversationId, count],
  );
  return rows.map(toFrame);
}

/** One frame by seq, or null. @throws the database error. */
export async function frameAt(q: Queryable, conversationId: string, seq: number): Promise<StoredFrame | null> {
  const { rows } = await q.query<{ frame: unknown }>(
    `SELECT frame FROM skillgate.web_frames WHERE conversation_id = $1 AND seq = $2`,
    [conversationId, seq],
  );
  return rows[0] ? toFrame(rows[0]) : null;
}
