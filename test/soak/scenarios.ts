/**
 * The soak's traffic (docs/reliability.md "Traffic"): one worker per chat runs conversations
 * one after another until the deadline — text bursts, uploads, confirmations, pending replies,
 * async jobs, notify calls — each registering in the ledger the replies it expects before it
 * sends, and waiting for them before the next conversation (a pending reply or confirmation
 * would otherwise swallow the chat's next message). Sends are paced by one shared rate.
 */
import type { Ledger } from './ledger.ts';
import { replyKey, type Phase } from './replies.ts';
import type { Ack, Button, ChannelDriver } from './drivers/types.ts';

/** Conversation kinds and their weights. */
export const KINDS = { text: 40, upload: 10, confirm: 12, pending: 12, async: 10, notify: 8 } as const;
export type Kind = keyof typeof KINDS;

/** Inbound sends at most `perSecond` per second overall. */
export class Pacer {
  #next = 0;
  constructor(readonly perSecond: number) {}
  async take(): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.#next);
    this.#next = at + 1000 / this.perSecond;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  }
}

/** A small seeded PRNG (mulberry32), so a run's traffic mix can be repeated. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the workers share. */
export interface TrafficContext {
  ledger: Ledger;
  pacer: Pacer;
  rng: () => number;
  /** No new conversation starts after this time (ms since the epoch). */
  deadline: number;
  /** How long a worker waits for one reply before it leaves its chat. */
  replyTimeoutMs: number;
  /** Buttons of each delivered answer, by `<chat> <key>`. */
  buttons: Map<string, Button[]>;
  /** The tag of the async call a chat waits for (the acknowledgement names no tag). */
  asyncTag: Map<string, string>;
  /** Tags of notify calls, expected once each at the Apprise API. */
  notifyTags: Set<string>;
  /** Inbound messages and presses sent, per kind of conversation. */
  sent: Record<Kind, number>;
  /** Conversations started, per kind. */
  conversations: Record<Kind, number>;
  /** Chats whose worker gave up waiting (the reply is then lost or late). */
  stalled: Set<string>;
}

type Expect = { phase: Phase; ordered?: boolean };

/** Register `expects` for `tag`, pace, then send with `act`; acknowledgements go to the ledger. */
async function send(
  ctx: TrafficContext,
  kind: Kind,
  chat: string,
  tag: string,
  expects: Expect[],
  act: () => Promise<Ack>,
): Promise<boolean> {
  await ctx.pacer.take();
  const sentAt = Date.now();
  for (const e of expects) ctx.ledger.expect(chat, replyKey(tag, e.phase), sentAt, { ordered: e.ordered ?? true });
  const ack = await act();
  ctx.sent[kind]++;
  for (const e of expects) {
    if (ack.acked) ctx.ledger.ack(chat, replyKey(tag, e.phase), ack.at);
    else ctx.ledger.unacked(chat, replyKey(tag, e.phase), ack.reason);
  }
  return ack.acked;
}

const wait = (ctx: TrafficContext, chat: string, tag: string, phase: Phase): Promise<boolean> =>
  ctx.ledger.waitFor(chat, replyKey(tag, phase), ctx.replyTimeoutMs);

/** The confirm button of a delivered confirmation, else null. */
export function confirmButton(buttons: readonly Button[]): Button | null {
  return buttons.find((b) => /确认|重新执行|confirm/i.test(b.label) || / confirm$/.test(b.data)) ?? buttons[0] ?? null;
}

/** One conversation of `kind` in `chat`; false when an expected reply did not come in time. */
export async function converse(ctx: TrafficContext, d: ChannelDriver, chat: string, kind: Kind, newTag: () => string): Promise<boolean> {
  ctx.conversations[kind]++;
  switch (kind) {
    case 'text': {
      const tags = Array.from({ length: 1 + Math.floor(ctx.rng() * 3) }, newTag);
      for (const t of tags)
        if (!(await send(ctx, kind, chat, t, [{ phase: 'ok' }], () => d.sendText(chat, `/soak_echo tag=${t}`)))) return false;
      for (const t of tags) if (!(await wait(ctx, chat, t, 'ok'))) return false;
      return true;
    }
    case 'upload': {
      const t = newTag();
      const data = Buffer.from(`soak upload ${t}\n`.repeat(1 + Math.floor(ctx.rng() * 200)));
      const file = { name: `soak-${t}.txt`, data, mime: 'text/plain' };
      if (!(await send(ctx, kind, chat, t, [{ phase: 'file' }], () => d.sendUpload(chat, `/soak_file tag=${t}`, file)))) return false;
      return wait(ctx, chat, t, 'file');
    }
    case 'confirm': {
      const t = newTag();
      if (!(await send(ctx, kind, chat, t, [{ phase: 'confirm-ask' }], () => d.sendText(chat, `/soak_confirm tag=${t}`)))) return false;
      if (!(await wait(ctx, chat, t, 'confirm-ask'))) return false;
      const button = confirmButton(ctx.buttons.get(`${chat} ${replyKey(t, 'confirm-ask')}`) ?? []);
      const press = d.buttons && button ? () => d.press(chat, button) : () => d.sendText(chat, '确认');
      if (!(await send(ctx, kind, chat, t, [{ phase: 'confirmed' }], press))) return false;
      return wait(ctx, chat, t, 'confirmed');
    }
    case 'pending': {
      const t = newTag();
      if (!(await send(ctx, kind, chat, t, [{ phase: 'ask' }], () => d.sendText(chat, `/soak_ask tag=${t}`)))) return false;
      if (!(await wait(ctx, chat, t, 'ask'))) return false;
      if (!(await send(ctx, kind, chat, t, [{ phase: 'answered' }], () => d.sendText(chat, `回复 ${t}：已处理`)))) return false;
      return wait(ctx, chat, t, 'answered');
    }
    case 'async': {
      const t = newTag();
      // Web runs async skills in the turn (docs/async-skills.md): one reply, no acknowledgement.
      const expects: Expect[] = d.channel === 'web' ? [{ phase: 'async' }] : [{ phase: 'async-ack' }, { phase: 'async', ordered: false }];
      ctx.asyncTag.set(chat, t);
      if (!(await send(ctx, kind, chat, t, expects, () => d.sendText(chat, `/soak_async tag=${t}`)))) return false;
      for (const e of expects) if (!(await wait(ctx, chat, t, e.phase))) return false;
      return true;
    }
    case 'notify': {
      const t = newTag();
      ctx.notifyTags.add(t);
      if (!(await send(ctx, kind, chat, t, [{ phase: 'notified' }], () => d.sendText(chat, `/soak_notify tag=${t}`)))) return false;
      return wait(ctx, chat, t, 'notified');
    }
  }
}

/** A kind drawn by weight among those `d` can drive. */
export function pickKind(d: ChannelDriver, rng: () => number): Kind {
  const kinds = (Object.keys(KINDS) as Kind[]).filter((k) => k !== 'upload' || d.uploads);
  const total = kinds.reduce((n, k) => n + KINDS[k], 0);
  let x = rng() * total;
  for (const k of kinds) {
    x -= KINDS[k];
    if (x < 0) return k;
  }
  return kinds[0]!;
}

/** Run conversations in `chat` (number `index` among all chats) until the deadline or a stall. */
export async function chatWorker(ctx: TrafficContext, d: ChannelDriver, chat: string, index: number): Promise<void> {
  let n = 0;
  const newTag = (): string => `c${index}n${++n}`;
  // Spread the first messages over the first seconds.
  await new Promise((r) => setTimeout(r, ctx.rng() * 2000));
  while (Date.now() < ctx.deadline) {
    const ok = await converse(ctx, d, chat, pickKind(d, ctx.rng), newTag);
    if (!ok) {
      ctx.stalled.add(chat);
      return;
    }
    await new Promise((r) => setTimeout(r, ctx.rng() * 1500));
  }
}
