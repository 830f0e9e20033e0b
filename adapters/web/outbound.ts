/**
 * {@link OutboundMessage} → stored web frames (docs/web-protocol.md "Server frames"):
 * `assistant.message` (text + server-sanitized `html` + `display_md`), one `assistant.media`
 * per media item, `confirm.request` for a confirmation. Each frame gets the next seq of its
 * conversation and is pushed to the conversation's sockets on every replica.
 */
import type { OutboundMessage, OutboundTarget, SendOptions, SendResult } from '../../src/channel/index.ts';
import type { WebContext } from './context.ts';
import { conversationOwner, framesOfOutboxRow } from './frames.ts';
import { conversationIdFor, isConversationId } from './conversation.ts';
import { PROTOCOL_VERSION, transientFrameId, type ServerFrame, type StoredFrameBody } from './wire.ts';
import { mediaForRecipient } from './recipient-media.ts';

/** Conversation owners seen, per Db (a conversation's owner never changes; rows are never deleted). */
const owners = new WeakMap<object, Map<string, { orgId: string; contactKey: string }>>();
const MAX_OWNERS = 10_000;

async function ownerOf(ctx: WebContext, conversationId: string): Promise<{ orgId: string; contactKey: string } | null> {
  let map = owners.get(ctx.db);
  if (!map) owners.set(ctx.db, (map = new Map()));
  const hit = map.get(conversationId);
  if (hit) return hit;
  const owner = await conversationOwner(ctx.db, conversationId);
  if (owner) {
    map.set(conversationId, owner);
    if (map.size > MAX_OWNERS) map.delete(map.keys().next().value!);
  }
  return owner;
}

/**
 * Where a target goes: `chat_id` is a conversation id (`conv_…`, a reply) or a contact key
 * (`send_message` to `web:<contact key>`, docs/messaging.md).
 * @returns null when a conversation id was never opened.
 */
export async function resolveTarget(
  ctx: WebContext,
  target: OutboundTarget,
): Promise<{ conversationId: string; contactKey: string } | null> {
  if (isConversationId(target.chat_id)) {
    const owner = await ownerOf(ctx, target.chat_id);
    return owner ? { conversationId: target.chat_id, contactKey: owner.contactKey } : null;
  }
  return { conversationId: conversationIdFor(ctx.orgId, target.chat_id), contactKey: target.chat_id };
}

/** The frame bodies of one outbound message, in sending order. */
export function framesOf(ctx: Pick<WebContext, 'renderHtml'>, m: OutboundMessage): StoredFrameBody[] {
  const out: StoredFrameBody[] = [];
  if (m.upload_refs?.length)
    out.push({
      type: 'upload.refs',
      reply_to: m.reply_to ?? null,
      uploads: m.upload_refs.map((u) => ({ ref: u.ref, filename: u.filename })),
    });
  const display = m.display_md?.trim() ? m.display_md : null;
  if (m.text.trim() !== '' || display !== null || (!m.media?.length && !m.confirm)) {
    let html: string | null = null;
    if (m.format === 'markdown') {
      const parts = m.text.trim() !== '' ? [ctx.renderHtml(m.text)] : [];
      // The core may already have appended the block to the text (docs/results.md).
      if (display !== null && !m.text.includes(display.trim())) parts.push(ctx.renderHtml(display));
      html = parts.join('\n');
    }
    out.push({
      type: 'assistant.message',
      kind: m.kind,
      text: m.text,
      format: m.format,
      html,
      display_md: display,
      reply_to: m.reply_to ?? null,
      final: m.final ?? m.kind !== 'progress',
    });
  }
  for (const item of m.media ?? []) {
    out.push({
      type: 'assistant.media',
      reply_to: m.reply_to ?? null,
      media: {
        kind: item.kind,
        url: item.file_id ? `/files/${encodeURIComponent(item.file_id)}` : null,
        filename: item.filename,
        mime_type: item.mime_type ?? null,
        size: item.size ?? null,
        caption_md: item.caption ?? null,
      },
    });
  }
  if (m.confirm) {
    out.push({
      type: 'confirm.request',
      kind: m.confirm.kind ?? 'confirm',
      confirm_token: m.confirm.token,
      prompt_md: m.confirm.prompt_md,
      prompt_html: ctx.renderHtml(m.confirm.prompt_md),
      options: m.confirm.options.map((o) => ({ id: o.id, label: o.label, ...(o.style ? { style: o.style } : {}) })),
      expires_at: m.confirm.expires_at,
    });
  }
  return out;
}

/**
 * Store and push the frames of one message. Never throws: a database failure is a retryable
 * `{ok:false}` (the outbox retries the whole message).
 */
export async function sendToWeb(
  ctx: WebContext,
  target: OutboundTarget,
  message: OutboundMessage,
  opts: SendOptions = {},
): Promise<SendResult> {
  try {
    const to = await resolveTarget(ctx, target);
    if (!to) return { ok: false, retryable: false, error: `unknown web conversation ${target.chat_id}`, code: 'unknown_conversation' };
    const outboxKey = opts.idempotencyKey ?? null;
    // An earlier attempt of this row may have stored its frames before its outcome was lost
    // (a crash before the delivery mark): they are the delivery, not stored twice.
    if (opts.unknownOutcome && outboxKey) {
      const stored = await framesOfOutboxRow(ctx.db, to.conversationId, outboxKey);
      if (stored.length > 0) {
        if (message.final) await setStatus(ctx, target, null);
        return { ok: true, message_ids: stored.map(String) };
      }
    }
    const ids: string[] = [];
    // Files from another session (send_message) become the recipient's own, servable uploads.
    const bodies = framesOf(ctx, await mediaForRecipient(ctx, to.contactKey, message));
    // All frames of the message are submitted at once: one statement stores them in order.
    const frames = await Promise.all(
      bodies.map((body, i) => {
        // A final reply ends the turn's status line: told along with its last frame.
        const clear = message.final && i === bodies.length - 1 ? statusFrame(ctx, to.conversationId, null) : undefined;
        return ctx.hub.append(Object.assign({}, to, { orgId: ctx.orgId, body, nowMs: ctx.clock(), outboxKey }), clear);
      }),
    );
    for (const frame of frames) ids.push(String(frame.seq));
    if (message.final && bodies.length === 0) await setStatus(ctx, target, null);
    return { ok: true, message_ids: ids };
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message }, 'web: storing a frame failed');
    return { ok: false, retryable: true, error: (err as Error).message };
  }
}

/** A transient `status` frame (text null clears the line). */
function statusFrame(ctx: Pick<WebContext, 'clock'>, conversationId: string, text: string | null): ServerFrame {
  return {
    v: PROTOCOL_VERSION,
    type: 'status',
    id: transientFrameId(),
    ts: new Date(ctx.clock()).toISOString(),
    conversation_id: conversationId,
    text: text === null ? null : text.slice(0, 500),
  };
}

/**
 * Show (or with null clear) the transient status line on the conversation's sockets, on
 * every replica (a NOTIFY carries it; never stored, never replayed). Never throws.
 */
export async function setStatus(ctx: WebContext, target: OutboundTarget, text: string | null): Promise<void> {
  try {
    const conversationId = isConversationId(target.chat_id) ? target.chat_id : conversationIdFor(ctx.orgId, target.chat_id);
    await ctx.hub.publishTransient(conversationId, statusFrame(ctx, conversationId, text));
  } catch (err) {
    ctx.log.debug({ err: (err as Error).message }, 'web: status not shown');
  }
}
