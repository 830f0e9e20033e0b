/**
 * Stored server frames (`skillgate.web_frames`) and conversations (`skillgate.web_conversations`):
 * every frame that must survive a reconnect gets the next `seq` of its conversation, assigned
 * atomically in the same statement that stores it (the conversation row is the counter, its
 * row lock orders concurrent senders, so seq order is commit order).
 */
import type { Queryable } from '../../src/channel/index.ts';
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
    /** The outbox row this frame delivers (`SendOptions.idempotencyKey`), for a resend to find it. */
    outboxKey?: string | null;
  },
): Promise<StoredFrame> {
  const ts = new Date(args.nowMs).toISOString();
  const { rows } = await q.query<{ seq: string }>(
    `WITH s AS (
       INSERT INTO skillgate.web_conversations (conversation_id, org_id, contact_key, last_seq) VALUES ($1, $2, $3, 1)
       ON CONFLICT (conversation_id) DO UPDATE SET last_seq = skillgate.web_conversations.last_seq + 1
       RETURNING last_seq
     )
     INSERT INTO skillgate.web_frames (conversation_id, seq, frame, created_at, outbox_key)
     SELECT $1, s.last_seq,
            $4::jsonb || jsonb_build_object('seq', s.last_seq, 'id', 's_' || s.last_seq::text), $5::timestamptz, $8::text
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
      args.outboxKey ?? null,
    ],
  );
  const seq = Number(rows[0]!.seq);
  // Object.assign, not `{ ...body, v, … }` (far slower on Node 20, adapters/web/inbound.ts)
  return Object.assign({}, args.body, {
    v: PROTOCOL_VERSION,
    id: `s_${seq}`,
    ts,
    seq,
    conversation_id: args.conversationId,
  }) as StoredFrame;
}

/** What {@link appendFrame} stores. */
export type AppendArgs = Parameters<typeof appendFrame>[1];

/** {@link appendFrames}' statement: `$1` a json array of rows (`ord`: the argument order). */
const APPEND_MANY = `WITH v AS (
       SELECT * FROM json_to_recordset($1::json)
                  AS t(conversation_id text, org_id text, contact_key text, body jsonb, at timestamptz, nchannel text, npayload jsonb,
                       outbox_key text, ord int)
     ), n AS (
       SELECT conversation_id, min(org_id) AS org_id, min(contact_key) AS contact_key, count(*)::bigint AS frames
         FROM v GROUP BY conversation_id
     ), s AS (
       INSERT INTO skillgate.web_conversations AS c (conversation_id, org_id, contact_key, last_seq)
       SELECT conversation_id, org_id, contact_key, frames FROM n
       ON CONFLICT (conversation_id) DO UPDATE SET last_seq = c.last_seq + EXCLUDED.last_seq
       RETURNING conversation_id, last_seq
     ), f AS (
       SELECT v.conversation_id, v.body, v.at, v.nchannel, v.npayload, v.outbox_key,
              s.last_seq - n.frames + row_number() OVER (PARTITION BY v.conversation_id ORDER BY v.ord) AS seq
         FROM v JOIN s ON s.conversation_id = v.conversation_id JOIN n ON n.conversation_id = v.conversation_id
     )
     INSERT INTO skillgate.web_frames (conversation_id, seq, frame, created_at, outbox_key)
     SELECT f.conversation_id, f.seq, f.body || jsonb_build_object('seq', f.seq, 'id', 's_' || f.seq::text), f.at, f.outbox_key
       FROM f
     RETURNING conversation_id, seq::text AS seq,
               (SELECT CASE WHEN f.nchannel IS NOT NULL
                            THEN pg_notify(f.nchannel, (f.npayload || jsonb_build_object('c', f.conversation_id, 's', f.seq))::text) END
                  FROM f WHERE f.conversation_id = web_frames.conversation_id AND f.seq = web_frames.seq) AS notified`;

/**
 * Store many frames at once ({@link appendFrame} each, same results) in one statement: each
 * conversation's counter moves by its number of frames, and its frames get the seqs in
 * argument order. @returns the stored frames in argument order.
 * @throws the database error (none of the frames is stored).
 */
export async function appendFrames(q: Queryable, items: AppendArgs[]): Promise<StoredFrame[]> {
  if (items.length === 1) return [await appendFrame(q, items[0]!)];
  const ts = items.map((a) => new Date(a.nowMs).toISOString());
  // One json parameter, not eight arrays: JSON.stringify is native, pg escapes every array element in JavaScript.
  const rows = items.map((a, k) => ({
    conversation_id: a.conversationId,
    org_id: a.orgId,
    contact_key: a.contactKey,
    body: { v: PROTOCOL_VERSION, ts: ts[k], conversation_id: a.conversationId, ...a.body },
    at: ts[k],
    nchannel: a.notify?.channel ?? null,
    npayload: a.notify ? { r: a.notify.replica, ...(a.notify.status ? { f: a.notify.status } : {}) } : null,
    outbox_key: a.outboxKey ?? null,
    ord: k,
  }));
  const { rows: stored } = await q.query<{ conversation_id: string; seq: string }>(APPEND_MANY, [JSON.stringify(rows)]);
  // Each conversation's seqs, ascending, belong to its items in argument order.
  const seqs = new Map<string, number[]>();
  for (const r of stored) {
    let list = seqs.get(r.conversation_id);
    if (!list) seqs.set(r.conversation_id, (list = []));
    list.push(Number(r.seq));
  }
  for (const list of seqs.values()) list.sort((a, b) => a - b);
  const next = new Map<string, number>();
  return items.map((a, k) => {
    const i = next.get(a.conversationId) ?? 0;
    next.set(a.conversationId, i + 1);
    const seq = seqs.get(a.conversationId)![i]!;
    return Object.assign({}, a.body, {
      v: PROTOCOL_VERSION,
      id: `s_${seq}`,
      ts: ts[k]!,
      seq,
      conversation_id: a.conversationId,
    }) as StoredFrame;
  });
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
  const { rows } = await q.query<{ frame: unknown }>(`SELECT frame FROM skillgate.web_frames WHERE conversation_id = $1 AND seq = $2`, [
    conversationId,
    seq,
  ]);
  return rows[0] ? toFrame(rows[0]) : null;
}

/**
 * Seqs of the frames an earlier attempt stored for outbox row `outboxKey` in the conversation,
 * ascending (empty when none). @throws the database error.
 */
export async function framesOfOutboxRow(q: Queryable, conversationId: string, outboxKey: string): Promise<number[]> {
  const { rows } = await q.query<{ seq: string }>(
    'SELECT seq::text AS seq FROM skillgate.web_frames WHERE conversation_id = $1 AND outbox_key = $2 ORDER BY seq',
    [conversationId, outboxKey],
  );
  return rows.map((r) => Number(r.seq));
}
