/**
 * Albums sent as one event per item (Telegram `media_group_id`; Bot API "sendMediaGroup": the
 * client delivers each photo / file of an album as its own update, the caption on one of them).
 * Without merging, a user sending three photos would get three turns and three answers. When
 * the inbox starts the first item of an album, it waits until the album had time to arrive
 * ({@link ALBUM_WAIT_MS} after that item was stored), then takes the chat's later items of the
 * same album that are still waiting behind it: their attachments are appended to the first
 * item's (in arrival order), the first non-empty text becomes the turn's text, and the items
 * taken are marked done — all in one statement, with the merged message written back to the
 * running event, so a retry after a crash runs the whole album again and nothing is lost.
 * Items arriving after the window are turns of their own.
 *
 * Split pastes go the same way: a client splits a paste longer than its per-message limit into
 * several messages (Telegram 4096, Discord 2000/4000), which arrive as events a moment apart.
 * When the running event is marked `near_limit` by its adapter, the inbox waits the same window,
 * then takes the sender's next messages of the chat that directly follow it, each stored within
 * the window after the previous one, as long as the previous one was itself near the limit: their
 * texts are joined with a newline, attachments appended ({@link mergeSplit}).
 */
import type { InboundMessage } from '../channel/types.ts';
import type { Queryable } from '../store/db.ts';

/** How long after the first item of an album is stored the inbox waits for the rest, ms (default). */
export const ALBUM_WAIT_MS = 1000;

/** The most items an album can have (Telegram: 10); more are left as turns of their own. */
export const ALBUM_MAX_ITEMS = 10;

/**
 * One message for an album: `head` (the first item) with the attachments of `items` appended in
 * order, and — when the head has no text — the first item's text that has some (with its
 * mention-free and display forms).
 */
export function mergeAlbum(head: InboundMessage, items: readonly InboundMessage[]): InboundMessage {
  const merged: InboundMessage = { ...head, attachments: [...head.attachments] };
  for (const it of items) merged.attachments.push(...it.attachments);
  if ((head.raw_input ?? '').trim() === '') {
    const captioned = items.find((it) => (it.raw_input ?? '').trim() !== '');
    if (captioned) {
      merged.raw_input = captioned.raw_input;
      merged.display_input = captioned.display_input ?? captioned.raw_input;
      merged.input_without_bot_mention = captioned.input_without_bot_mention ?? captioned.raw_input;
      merged.mentioned_bot = head.mentioned_bot || captioned.mentioned_bot;
    }
  }
  return merged;
}

/**
 * Take the album's items waiting behind the running event `headId` of `chatKey` and write the
 * merged message back to it, in one statement (two UPDATEs in a CTE). Only rows still
 * `received` and listed in `itemIds` are taken; the head must still be leased to `owner`.
 * @returns true when the statement applied (false: the lease was lost; nothing changed)
 */
async function commitAlbum(
  q: Queryable,
  headId: string,
  owner: string,
  chatKey: string,
  merged: InboundMessage,
  itemIds: string[],
  nowIso: string,
  what = 'album',
): Promise<boolean> {
  const { rows } = await q.query<{ id: string }>(
    `WITH head AS (
       UPDATE skillgate.inbox_events SET payload = $3::jsonb
        WHERE id = $1::bigint AND lease_owner = $2 AND status = 'processing'
        RETURNING id),
     items AS (
       UPDATE skillgate.inbox_events i
          SET status = 'done', processed_at = $6::timestamptz, error = 'merged into ' || $7 || ' event ' || $1
        WHERE i.id = ANY($5::bigint[]) AND i.chat_key = $4 AND i.status = 'received' AND EXISTS (SELECT 1 FROM head)
        RETURNING i.id)
     SELECT id::text AS id FROM head`,
    [headId, owner, JSON.stringify(merged), chatKey, itemIds, nowIso, what],
  );
  return rows.length > 0;
}

/** Most messages one split paste is joined from. */
export const SPLIT_MAX_PARTS = 8;

/** One message for a split paste: `head` with the texts of `parts` joined after it by newlines, attachments appended. */
export function mergeSplit(head: InboundMessage, parts: readonly InboundMessage[]): InboundMessage {
  const join = (pick: (m: InboundMessage) => string | null | undefined): string =>
    [head, ...parts].map((m) => pick(m) ?? m.raw_input ?? '').join('\n');
  const merged: InboundMessage = {
    ...head,
    raw_input: join((m) => m.raw_input),
    display_input: join((m) => m.display_input),
    input_without_bot_mention: join((m) => m.input_without_bot_mention),
    attachments: [...head.attachments, ...parts.flatMap((p) => p.attachments)],
    mentioned_bot: head.mentioned_bot || parts.some((p) => p.mentioned_bot),
  };
  delete merged.near_limit;
  return merged;
}

/** Join the rest of a split paste to the running event (see the module doc); `head` unchanged when none follows. */
async function absorbSplit(
  q: Queryable,
  args: {
    headId: string;
    owner: string;
    chatKey: string;
    head: InboundMessage;
    receivedAt: Date;
    nowMs: () => number;
    waitMs: number;
    sleep: (ms: number) => Promise<void>;
  },
): Promise<InboundMessage> {
  const left = args.receivedAt.getTime() + args.waitMs - args.nowMs();
  if (left > 0) await args.sleep(Math.min(left, args.waitMs));
  const { rows } = await q.query<{ id: string; payload: InboundMessage; received_at: Date | string }>(
    `SELECT id::text AS id, payload, received_at FROM skillgate.inbox_events
      WHERE chat_key = $1 AND status = 'received' AND id > $2::bigint
      ORDER BY id LIMIT $3`,
    [args.chatKey, args.headId, SPLIT_MAX_PARTS - 1],
  );
  const taken: { id: string; payload: InboundMessage }[] = [];
  let prevAt = args.receivedAt.getTime();
  let prev = args.head;
  for (const r of rows) {
    const m = r.payload;
    const at = new Date(r.received_at).getTime();
    const same = m.kind === 'message' && !m.media_group_id && m.actor?.id === args.head.actor?.id && m.account === args.head.account;
    if (!prev.near_limit || !same || at - prevAt > args.waitMs) break;
    taken.push(r);
    prev = m;
    prevAt = at;
  }
  if (taken.length === 0) return args.head;
  const merged = mergeSplit(
    args.head,
    taken.map((r) => r.payload),
  );
  const ok = await commitAlbum(
    q,
    args.headId,
    args.owner,
    args.chatKey,
    merged,
    taken.map((r) => r.id),
    new Date(args.nowMs()).toISOString(),
    'split paste',
  );
  return ok ? merged : args.head;
}

/**
 * Merge the album, or the split paste, of the running event (see the module doc). Returns the
 * message to run: the merged one, or `head` unchanged when nothing waits behind it (or the
 * lease was lost).
 * @param sleep waits `ms` (the inbox passes a timer; tests a fake)
 * @throws the database error (the inbox then retries the event as for a handler failure)
 */
export async function absorbAlbum(
  q: Queryable,
  args: {
    headId: string;
    owner: string;
    chatKey: string;
    head: InboundMessage;
    receivedAt: Date;
    nowMs: () => number;
    waitMs: number;
    sleep: (ms: number) => Promise<void>;
  },
): Promise<InboundMessage> {
  const group = args.head.media_group_id;
  if (args.head.kind !== 'message') return args.head;
  if (!group) return args.head.near_limit ? absorbSplit(q, args) : args.head;
  const left = args.receivedAt.getTime() + args.waitMs - args.nowMs();
  if (left > 0) await args.sleep(Math.min(left, args.waitMs));
  const { rows } = await q.query<{ id: string; payload: InboundMessage }>(
    `SELECT id::text AS id, payload FROM skillgate.inbox_events
      WHERE chat_key = $1 AND status = 'received' AND id > $2::bigint AND payload->>'media_group_id' = $3
      ORDER BY id LIMIT $4`,
    [args.chatKey, args.headId, group, ALBUM_MAX_ITEMS - 1],
  );
  const items = rows.filter((r) => r.payload.kind === 'message');
  if (items.length === 0) return args.head;
  const merged = mergeAlbum(
    args.head,
    items.map((r) => r.payload),
  );
  const ok = await commitAlbum(
    q,
    args.headId,
    args.owner,
    args.chatKey,
    merged,
    items.map((r) => r.id),
    new Date(args.nowMs()).toISOString(),
  );
  return ok ? merged : args.head;
}
