/**
 * Inbound rules of the contract (docs/adapter-authoring.md): verification before anything sees
 * the event, dedup of redeliveries, bots ignored, group mention gating.
 */
import { expect, it } from 'vitest';
import type { WebhookRequest } from '../../src/channel/index.ts';
import { nextSeq, type Bed } from './harness.ts';
import type { AdapterContractOptions, EventSpec } from './types.ts';

/** Change the last character of a secret so it stays the same length and charset-ish. */
function alter(v: string): string {
  if (v === '') return 'x';
  const last = v.at(-1)!;
  return v.slice(0, -1) + (last === 'a' ? 'b' : last === '0' ? '1' : /[0-9]/.test(last) ? '0' : 'a');
}

function spec(p: Partial<EventSpec>): EventSpec {
  return { seq: nextSeq(), text: 'hello 你好', chat: 'direct', sender: 'user', address: 'none', ...p };
}

/** Register verification, dedup, bot and gating checks. */
export function registerInboundChecks(opts: AdapterContractOptions, bed: () => Bed): void {
  const gen = opts.generators;
  const sample = (): Buffer => {
    const b = gen.message(spec({}));
    if (!b) throw new Error('generators.message must produce a direct user message');
    return b;
  };

  /** Deliver `body` with `tamper`; assert 401 and that neither the host nor the platform saw anything. */
  async function expectRefused(b: Bed, body: Buffer, tamper: (r: WebhookRequest) => void, what: string, at?: Date): Promise<void> {
    const before = b.host.calls.length;
    b.fake.reset();
    const res = await b.deliver(body, { tamper, at });
    expect(res.status, what).toBe(401);
    expect(b.host.calls.length, `${what}: nothing reaches the host`).toBe(before);
    expect(b.fake.requests, `${what}: no platform call`).toHaveLength(0);
  }

  it('a valid signed delivery is accepted (baseline for the refusals)', async () => {
    const b = bed();
    const before = b.host.accepted().length;
    const res = await b.deliver(sample());
    expect(res.status).toBe(200);
    expect(b.host.accepted().length).toBe(before + 1);
  });

  it('every signing header/query value missing → 401 before any handler or SDK', async () => {
    const b = bed();
    const signed = opts.sign(sample(), b.clock.now());
    const keys = [
      ...Object.keys(signed.headers).map((k) => ['h', k.toLowerCase()] as const),
      ...Object.keys(signed.query ?? {}).map((k) => ['q', k] as const),
    ];
    expect(keys.length, 'the signer produces at least one header or query value').toBeGreaterThan(0);
    for (const [where, key] of keys) {
      await expectRefused(b, sample(), (r) => void (where === 'h' ? delete r.headers[key] : delete r.query[key]), `without ${key}`);
    }
    await expectRefused(
      b,
      sample(),
      (r) => {
        for (const [w, k] of keys)
          if (w === 'h') delete r.headers[k];
          else delete r.query[k];
      },
      'without any signing value',
    );
  });

  it('every signing header/query value altered → 401 (constant-time compare of the same length)', async () => {
    const b = bed();
    const signed = opts.sign(sample(), b.clock.now());
    for (const k of Object.keys(signed.headers).map((x) => x.toLowerCase())) {
      await expectRefused(b, sample(), (r) => void (r.headers[k] = alter(r.headers[k] ?? '')), `altered header ${k}`);
      await expectRefused(b, sample(), (r) => void (r.headers[k] = `${r.headers[k] ?? ''}x`), `longer header ${k}`);
    }
    for (const k of Object.keys(signed.query ?? {})) {
      await expectRefused(b, sample(), (r) => void (r.query[k] = alter(r.query[k] ?? '')), `altered query ${k}`);
    }
  });

  it('a signed body that cannot be parsed → 400, nothing stored', async () => {
    const b = bed();
    for (const body of ['{"id": 1,', 'not json at all', '', '\u0000\u0001', '[1,2', '{"a":"\ud800"']) {
      const before = b.host.calls.length;
      const res = await b.deliver(Buffer.from(body, 'utf8'));
      expect(res.status, `body ${JSON.stringify(body)}`).toBe(400);
      expect(b.host.calls.length).toBe(before);
    }
  });

  it('an event type the gateway does not handle → 200 and ignored', async () => {
    const b = bed();
    const before = b.host.accepted().length;
    const res = await b.deliver(gen.ignoredEvent(nextSeq()));
    expect(res.status).toBe(200);
    expect(b.host.accepted().length).toBe(before);
  });

  if (opts.replayWindowS !== undefined) {
    const w = opts.replayWindowS;
    it(`replay window ${w} s — older or further in the future → 401, inside → 200`, async () => {
      const b = bed();
      const now = b.clock.now().getTime();
      await expectRefused(b, sample(), () => undefined, 'too old', new Date(now - (w + 1) * 1000));
      await expectRefused(b, sample(), () => undefined, 'too far in the future', new Date(now + (w + 1) * 1000));
      const res = await b.deliver(sample(), { at: new Date(now - (w - 5) * 1000) });
      expect(res.status).toBe(200);
    });
  }

  for (const h of opts.handshakes ?? []) {
    it(`declared handshake "${h.name}" is answered without a signature`, async () => {
      const b = bed();
      const r = h.request(b.ctx);
      const res = await b.adapter.handleWebhook(
        { method: r.method, path: '', headers: r.headers, query: r.query ?? {}, body: r.body },
        b.host,
      );
      expect(res.status).toBe(h.expect.status);
      if (typeof h.expect.body === 'string') expect(res.body).toBe(h.expect.body);
      else if (h.expect.body) expect(res.body).toMatchObject(h.expect.body);
    });
  }

  it('one event delivered 5 times concurrently → exactly one accepted, every delivery 2xx', async () => {
    const b = bed();
    const body = gen.message(spec({ text: 'five times' }))!;
    const before = b.host.calls.length;
    const res = await Promise.all(Array.from({ length: 5 }, () => b.deliver(body)));
    for (const r of res) expect(r.status).toBe(200);
    const calls = b.host.calls.slice(before);
    expect(calls.filter((c) => c.result === 'accepted')).toHaveLength(1);
    const key = calls[0]!.msg.dedupe_key;
    expect(calls.every((c) => c.msg.dedupe_key === key)).toBe(true);
    const { rows } = await b.db.query<{ n: number }>('SELECT count(*)::int AS n FROM skillgate.inbox_events WHERE dedupe_key = $1', [key]);
    expect(rows[0]!.n).toBe(1);
  });

  for (const sender of ['self', 'other_bot'] as const) {
    const body = gen.message(spec({ sender }));
    if (!body) continue;
    it(`a message from ${sender === 'self' ? 'our own bot' : 'another bot'} is ignored (200, nothing accepted)`, async () => {
      const b = bed();
      const before = b.host.accepted().length;
      const res = await b.deliver(gen.message(spec({ sender }))!);
      expect(res.status).toBe(200);
      expect(b.host.accepted().length).toBe(before);
    });
  }

  it('a direct message is addressed to the bot, raw_input verbatim', async () => {
    const b = bed();
    const text = '  查询 <b>&amp; 42 😀  ';
    const before = b.host.accepted().length;
    await b.deliver(gen.message(spec({ text }))!);
    const got = b.host.accepted().slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]!.raw_input).toBe(text);
    expect(got[0]!.addressed_to_bot).toBe(true);
    expect(got[0]!.chat.type).toBe('direct');
  });

  const groupCases: { address: EventSpec['address']; text: string; addressed: boolean; cleaned?: string }[] = [
    { address: 'none', text: 'just chatting', addressed: false },
    { address: 'mention', text: 'status pump-3', addressed: true, cleaned: 'status pump-3' },
    { address: 'command_suffix', text: '/status pump-3', addressed: true, cleaned: '/status pump-3' },
    { address: 'other_bot_command', text: '/status pump-3', addressed: false },
  ];
  for (const g of groupCases) {
    if (!gen.message(spec({ chat: 'group', address: g.address, text: g.text }))) continue;
    it(`group message with address "${g.address}" → addressed_to_bot ${g.addressed}`, async () => {
      const b = bed();
      const before = b.host.calls.length;
      const res = await b.deliver(gen.message(spec({ chat: 'group', address: g.address, text: g.text }))!);
      expect(res.status).toBe(200);
      const got = b.host.calls
        .slice(before)
        .filter((c) => c.result === 'accepted')
        .map((c) => c.msg);
      if (!g.addressed) {
        expect(got.filter((m) => m.addressed_to_bot)).toHaveLength(0);
        return;
      }
      expect(got).toHaveLength(1);
      expect(got[0]!.chat.type).toBe('group');
      expect(got[0]!.addressed_to_bot).toBe(true);
      expect(got[0]!.input_without_bot_mention).toBe(g.cleaned);
      if (g.address === 'mention') expect(got[0]!.mentioned_bot).toBe(true);
    });
  }
}
