/**
 * The soak's counting (test/soak/ledger.ts, replies.ts; docs/reliability.md "What is counted")
 * on delivery sequences of the kinds a run produces: lost, duplicated and out-of-order replies
 * per chat, unacknowledged sends, async results that are late by design, latency outside the
 * fault windows, and the texts the channels really deliver (Telegram plain text, a Feishu card's
 * strings, Discord's escaped markdown, the restart notice). The harness itself is a manual
 * command (`npm run soak`); only this runs in the suite.
 */
import { describe, expect, it } from 'vitest';
import { Ledger, percentile } from './ledger.ts';
import { parseReply } from './replies.ts';

const A = 'telegram:7100001';
const B = 'web:soak_web_1';

describe('soak ledger', () => {
  it('counts every expected reply once; nothing lost, duplicated or out of order', () => {
    const l = new Ledger();
    for (const [i, k] of ['c1n1:ok', 'c1n2:ok', 'c1n3:ok'].entries()) {
      l.expect(A, k, 1000 + i);
      l.ack(A, k, 1010 + i);
    }
    l.deliver({ chat: A, key: 'c1n1:ok', at: 1100, text: 'soak ok c1n1' });
    l.deliver({ chat: A, key: 'c1n2:ok', at: 1200, text: 'soak ok c1n2' });
    l.deliver({ chat: A, key: 'c1n3:ok', at: 1300, text: 'soak ok c1n3' });
    const c = l.counts();
    expect(c).toMatchObject({ expected: 3, acknowledged: 3, received: 3, lost: 0, duplicated: 0, outOfOrder: 0, unexpected: 0 });
    expect(l.outstanding()).toEqual([]);
  });

  it('an acknowledged inbound without its reply is lost; a sent but unacknowledged one is not', () => {
    const l = new Ledger();
    l.expect(A, 'c1n1:ok', 1000);
    l.ack(A, 'c1n1:ok', 1005);
    l.expect(A, 'c1n2:ok', 2000);
    l.unacked(A, 'c1n2:ok', 'not accepted within 180 s (HTTP 503)');
    const c = l.counts();
    expect(c.lost).toBe(1);
    expect(c.unacknowledged).toBe(1);
    expect(c.unacknowledgedReasons).toEqual({ 'not accepted within 180 s (HTTP 503)': 1 });
    expect(c.samples).toContain(`lost: ${A} c1n1:ok`);
    expect(l.outstanding().map((e) => e.key)).toEqual(['c1n1:ok']);
  });

  it('a reply delivered twice is one duplicate; a third delivery is a second one', () => {
    const l = new Ledger();
    l.expect(B, 'c2n1:confirmed', 1000);
    l.ack(B, 'c2n1:confirmed', 1001);
    for (const at of [1100, 1500, 1900]) l.deliver({ chat: B, key: 'c2n1:confirmed', at, text: 'soak confirmed c2n1' });
    const c = l.counts();
    expect(c.duplicated).toBe(2);
    expect(c.lost).toBe(0);
    expect(c.samples).toContain(`duplicated: ${B} c2n1:confirmed ×3`);
  });

  it('per chat: a reply after the reply to a later message is out of order; other chats and async results do not count', () => {
    const l = new Ledger();
    for (const k of ['c1n1:ok', 'c1n2:ok']) {
      l.expect(A, k, 1000);
      l.ack(A, k, 1001);
    }
    l.expect(B, 'c2n1:ok', 1000);
    l.ack(B, 'c2n1:ok', 1001);
    l.expect(A, 'c1n3:async-ack', 1100);
    l.expect(A, 'c1n3:async', 1100, { ordered: false });
    l.ack(A, 'c1n3:async-ack', 1101);
    l.ack(A, 'c1n3:async', 1101);
    l.deliver({ chat: A, key: 'c1n2:ok', at: 1200, text: '' });
    l.deliver({ chat: B, key: 'c2n1:ok', at: 1210, text: '' }); // earlier ordinal, other chat: fine
    l.deliver({ chat: A, key: 'c1n1:ok', at: 1300, text: '' }); // after c1n2 in the same chat
    l.deliver({ chat: A, key: 'c1n3:async-ack', at: 1400, text: '' });
    l.deliver({ chat: A, key: 'c1n3:async', at: 1350, text: '' });
    const c = l.counts();
    expect(c.outOfOrder).toBe(1);
    expect(c.samples).toContain(`out of order: ${A}: c1n1:ok after c1n2:ok`);
    expect(c.lost).toBe(0);
  });

  it('deliveries naming no expectation are unexpected', () => {
    const l = new Ledger();
    l.deliver({ chat: A, key: null, at: 1, text: '系统繁忙，请稍后再试' });
    l.deliver({ chat: A, key: 'c9n9:ok', at: 2, text: 'soak ok c9n9' });
    expect(l.counts().unexpected).toBe(2);
  });

  it('waitFor resolves on the delivery, or false after its timeout', async () => {
    const l = new Ledger();
    l.expect(A, 'c1n1:ask', 1);
    const got = l.waitFor(A, 'c1n1:ask', 5000);
    l.deliver({ chat: A, key: 'c1n1:ask', at: 2, text: 'soak ask c1n1' });
    expect(await got).toBe(true);
    expect(await l.waitFor(A, 'c1n1:ask', 1)).toBe(true);
    expect(await l.waitFor(A, 'c1n2:ask', 5)).toBe(false);
  });

  it('latency leaves out replies whose span touches a fault window, and async results', () => {
    const l = new Ledger();
    const add = (k: string, sent: number, acked: number, got: number, ordered = true): void => {
      l.expect(A, k, sent, { ordered });
      l.ack(A, k, acked);
      l.deliver({ chat: A, key: k, at: got, text: '' });
    };
    add('c1n1:ok', 0, 10, 110); // 100 ms
    add('c1n2:ok', 1000, 1000, 1300); // 300 ms
    add('c1n3:ok', 4000, 4100, 9000); // spans the window
    add('c1n4:async', 10_000, 10_000, 20_000, false);
    const lat = l.latencies([{ name: 'PostgreSQL restart', from: 5000, to: 6000 }]);
    expect(lat.sort((a, b) => a - b)).toEqual([100, 300]);
    expect(percentile(lat, 50)).toBe(100);
    expect(percentile(lat, 99)).toBe(300);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('soak reply texts', () => {
  it('reads the tag and phase from what each channel delivers', () => {
    expect(parseReply('soak ok c1n2')).toEqual({ kind: 'answer', tag: 'c1n2', phase: 'ok' });
    // A Feishu card's strings joined (schema version first), Telegram text, Discord markdown.
    expect(parseReply('2.0\nsoak confirm-ask c6n1')).toEqual({ kind: 'answer', tag: 'c6n1', phase: 'confirm-ask' });
    expect(parseReply('soak file c3n4 n=1 bytes=3400')).toEqual({ kind: 'answer', tag: 'c3n4', phase: 'file' });
    expect(parseReply('soak notified c2n9 sent')).toEqual({ kind: 'answer', tag: 'c2n9', phase: 'notified' });
    expect(parseReply('「soak\\_async」已在后台开始执行，完成后会把结果发到这里。')).toEqual({ kind: 'async-ack' });
    expect(parseReply('「soak_async」已在后台开始执行，完成后会把结果发到这里。')).toEqual({ kind: 'async-ack' });
    expect(parseReply('网关在执行「soak_confirm」时重启了，这次执行可能没有完成，也可能已经生效。要重新执行一次吗？')).toEqual({
      kind: 'restart-notice',
    });
    // A failure text names the tag but no phase the soak expects.
    expect(parseReply('soak ask-failed c2n2 to 须为 <渠道>[@<账号>]:<ID>')).toEqual({ kind: 'other' });
    expect(parseReply('soak ok c1n22x')).toEqual({ kind: 'other' });
  });
});
