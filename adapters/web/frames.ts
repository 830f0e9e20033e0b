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

/** What {@link appendFrame} stores. */
export type AppendArgs = Parameters<typeof appendFrame>[1];

/**
 * Store many frames at once ({@link appendFrame} each, same results): frames of distinct
 * conversations share one statement; a second frame of a conversation goes in the next one,
 * after the first (its seq follows). @returns the stored frames in argument order.
 * @throws the database error (none of the failed statement's frames is stored).
 */
export async function appendFrames(q: Queryable, items: AppendArgs[]): Promise<StoredFrame[]> {
  const out: StoredFrame[] = new Array(items.length);
  let rest = items.map((args, i) => ({ args, i }));
  while (rest.length > 0) {
    const seen = new Set<string>();
    const round = rest.filter((r) => !seen.has(r.args.conversationId) && seen.add(r.args.conversationId));
    rest = rest.filter((r) => !round.includes(r));
    if (round.length === 1) {
      out[round[0]!.i] = await appendFrame(q, round[0]!.args);
      continue;
    }
    const ts = round.map((r) => new Date(r.args.nowMs).toISOString());
    const { rows } = await q.query<{ conversation_id: string; seq: string }>(
      `WITH v AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::timestamptz[], $6::text[], $7::jsonb[])
                    AS t(conversation_id, org_id, contact_key, body, at, nchannel, npayload)
       ), s AS (
         INSERT INTO skillgate.web_conversations (conversation_id, org_id, contact_key, last_seq)
         SELECT conversation_id, org_id, contact_key, 1 FROM v
         ON CONFLICT (conversation_id) DO UPDATE SET last_seq = skillgate.web_conversations.last_seq + 1
         RETURNING conversation_id, last_seq
       )
       INSERT INTO skillgate.web_frames (conversation_id, seq, frame, created_at)
       SELECT v.conversation_id, s.last_seq,
              v.body || jsonb_build_object('seq', s.last_seq, 'id', 's_' || s.last_seq::text), v.at
         FROM v JOIN s ON s.conversation_id = v.conversation_id
       RETURNING conversation_id, seq::text AS seq,
                 (SELECT CASE WHEN v.nchannel IS NOT NULL
                              THEN pg_notify(v.nchannel, (v.npayload || jsonb_build_object('c', v.conversation_id, 's', seq))::text) END
                    FROM v WHERE v.conversation_id = web_frames.conversation_id) AS notified`,
      [
        round.map((r) => r.args.conversationId),
        round.map((r) => r.args.orgId),
        round.map((r) => r.args.contactKey),
        round.map((r, k) => JSON.stringify({ v: PROTOCOL_VERSION, ts: ts[k], conversation_id: r.args.conversationId, ...r.args.body })),
        ts,
        round.map((r) => r.args.notify?.channel ?? null),
        round.map((r) => (r.args.notify ? JSON.stringify({ r: r.args.notify.replica, ...(r.args.notify.status ? { f: r.args.notify.status } : {}) }) : null)),
      ],
    );
    const seqOf = new Map(rows.map((r) => [r.conversation_id, Number(r.seq)]));
    round.forEach((r, k) => {
      const seq = seqOf.get(r.args.conversationId)!;
      out[r.i] = { ...r.args.body, v: PROTOCOL_VERSION, id: `s_${seq}`, ts: ts[k]!, seq, conversation_id: r.args.conversationId } as StoredFrame;
    });
  }
  return out;
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
