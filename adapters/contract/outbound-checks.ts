/**
 * Outbound rules of the contract: chunking after rendering in the platform's unit,
 * plain-text retry, media upload then send with Unicode file names, button payloads within the
 * limit (long ones through `src/channel/callback-payloads.ts`), 429 honoured and bounded, every
 * failure surfaced. Also Unicode file names in (fetchAttachment).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { measure, type OutboundMessage, REPLY_MAX_PARTS, type SendResult } from '../../src/channel/index.ts';
import { nextSeq, type Bed } from './harness.ts';
import type { AdapterContractOptions } from './types.ts';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A deterministic PRNG (mulberry32) for generated texts. */
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

function reply(text: string, extra: Partial<OutboundMessage> = {}): OutboundMessage {
  return { kind: 'reply', text, format: 'markdown', final: true, ...extra };
}

/** Register the outbound checks. */
export function registerOutboundChecks(opts: AdapterContractOptions, bed: () => Bed): void {
  const p = opts.outbound;
  const sends = (b: Bed) => b.fake.calls(p.sendPath).filter((r) => r.seq >= 0);

  /** Send and check every delivered chunk; returns the chunks' texts. */
  async function sendAndCheckChunks(b: Bed, msg: OutboundMessage): Promise<string[]> {
    b.fake.reset();
    const res = await b.adapter.send(p.target, msg);
    expect(res.ok, res.ok ? '' : res.error).toBe(true);
    const texts = sends(b)
      .map((r) => p.sentText(r))
      .filter((t): t is string => t !== null);
    for (const t of texts) {
      expect(t.trim().length, 'no empty chunk').toBeGreaterThan(0);
      expect(measure(t, p.unit), `chunk within ${p.maxLength} ${p.unit}`).toBeLessThanOrEqual(p.maxLength);
      expect(LONE_SURROGATE.test(t), 'no split surrogate pair').toBe(false);
      expect(p.wellFormed?.(t) ?? null, 'chunk well-formed').toBeNull();
    }
    return texts;
  }

  it('a reply longer than the limit with an emoji at the split point → chunks within the unit, emoji intact', async () => {
    const b = bed();
    const filler = 'a'.repeat(p.maxLength - 1);
    const text = `${filler}😀${'b'.repeat(900)}`;
    const texts = await sendAndCheckChunks(b, reply(text));
    expect(texts.length).toBeGreaterThanOrEqual(2);
    expect(texts.join('').split('😀').length - 1, 'the emoji arrives once, whole').toBe(1);
    expect(texts.join('').replace(/\s/g, '')).toContain(`a😀b`);
  });

  it('a code block spanning the split point → every chunk well-formed, all lines kept', async () => {
    const b = bed();
    const lines = Array.from({ length: Math.ceil((p.maxLength * 1.6) / 20) }, (_, i) => `line ${String(i).padStart(4, '0')} <&> 数据`);
    const texts = await sendAndCheckChunks(b, reply(`Intro\n\n\`\`\`js\n${lines.join('\n')}\n\`\`\`\n\nOutro`));
    expect(texts.length).toBeGreaterThanOrEqual(2);
    const all = texts.join('\n');
    for (const l of [lines[0]!, lines.at(-1)!, lines[Math.floor(lines.length / 2)]!]) expect(all).toContain(l.split(' <')[0]);
  });

  it('a reply whose rendering needs more than REPLY_MAX_PARTS messages arrives as REPLY_MAX_PARTS, one cut notice last', async () => {
    const b = bed();
    let text = '';
    while (measure(text, p.unit) < p.maxLength * (REPLY_MAX_PARTS + 3))
      text += '**泵房** 压力 & 温度 [报告](https://example.com/r) 正常。\n';
    const texts = await sendAndCheckChunks(b, reply(text, { lang: 'en', omitted: 1000 }));
    expect(texts.length).toBe(REPLY_MAX_PARTS);
    expect(texts.filter((t) => t.includes('reply too long')).length, 'one notice').toBe(1);
    expect(texts.at(-1)).toMatch(/about \d+ characters left out\)\s*$/);
  });

  it('generated texts (emoji, CJK, markup, fences, long) never throw and always chunk validly', async () => {
    const b = bed();
    const rnd = prng(7);
    const pieces = [
      '😀',
      '👨‍👩‍👧',
      '数据',
      '<',
      '>',
      '&',
      '*',
      '_',
      '`',
      '```\ncode\n',
      '\n\n',
      ' ',
      'word',
      '[a](http://x.y)',
      '|a|b|\n|-|-|\n|1|2|\n',
      '# h\n',
      'é',
      '\u0301',
    ];
    for (let i = 0; i < 12; i++) {
      const n = Math.floor(rnd() * p.maxLength * 1.5) + 1;
      let s = '';
      while (s.length < n) s += pieces[Math.floor(rnd() * pieces.length)]!;
      if (s.trim() === '') s += 'x';
      let texts: string[] = [];
      await expect((async () => (texts = await sendAndCheckChunks(b, reply(s))))()).resolves.not.toThrow();
      expect(texts.length).toBeGreaterThanOrEqual(1);
    }
  });

  const formattingRejected = p.formattingRejected;
  if (formattingRejected) {
    it('formatting rejected by the platform → the same content is resent as plain text', async () => {
      const b = bed();
      b.fake.reset();
      b.fake.script('*', p.sendPath, formattingRejected, 1);
      const res = await b.adapter.send(p.target, reply('**粗体** a < b && c > d _x_ [y](http://z.example)'));
      expect(res.ok, res.ok ? '' : res.error).toBe(true);
      const all = sends(b);
      expect(all.length).toBeGreaterThanOrEqual(2);
      expect(p.isFormatted(all[0]!)).toBe(true);
      const last = all.at(-1)!;
      expect(p.isFormatted(last)).toBe(false);
      const text = p.sentText(last) ?? '';
      for (const s of ['粗体', 'a < b && c > d', 'http://z.example']) expect(text).toContain(s);
    });
  } else {
    it('a text-only channel never asks the platform to interpret formatting; the words arrive', async () => {
      const b = bed();
      b.fake.reset();
      const res = await b.adapter.send(p.target, reply('**粗体** a < b && c > d _x_ [y](http://z.example)'));
      expect(res.ok, res.ok ? '' : res.error).toBe(true);
      const all = sends(b);
      expect(all.length).toBeGreaterThanOrEqual(1);
      for (const r of all) expect(p.isFormatted(r)).toBe(false);
      const text = all.map((r) => p.sentText(r) ?? '').join('\n');
      for (const s of ['粗体', 'a < b && c > d', 'http://z.example']) expect(text).toContain(s);
    });
  }

  it('media is uploaded, then sent; a Chinese file name and the bytes arrive unchanged', async () => {
    const b = bed();
    const dir = mkdtempSync(join(tmpdir(), 'contract-media-'));
    const filename = '报修单 (最终版)·2026.pdf';
    const data = Buffer.from(`%PDF-1.4\n${'x'.repeat(3000)}\n测试\n%%EOF\n`, 'utf8');
    writeFileSync(join(dir, filename), data);
    b.fake.reset();
    const res = await b.adapter.send(
      p.target,
      reply('附件如下', {
        media: [{ kind: 'file', path: join(dir, filename), filename, mime_type: 'application/pdf', size: data.length }],
      }),
    );
    expect(res.ok, res.ok ? '' : res.error).toBe(true);
    const uploads = b.fake.requests.filter((r) => p.uploadedFiles(r).some((f) => f.filename === filename && f.data.equals(data)));
    expect(uploads.length, `an upload carrying ${filename}`).toBeGreaterThanOrEqual(1);
    const lastSend = sends(b).at(-1)!;
    expect(uploads[0]!.seq).toBeLessThanOrEqual(lastSend.seq);
  });

  it('a cut reply whose rendering is cut again names its full-text file in the one notice, and the file arrives whole', async () => {
    const b = bed();
    const dir = mkdtempSync(join(tmpdir(), 'contract-full-'));
    const filename = '完整回复-20260101-000000.md';
    let text = '';
    while (measure(text, p.unit) < p.maxLength * (REPLY_MAX_PARTS + 3))
      text += '**泵房** 压力 & 温度 [报告](https://example.com/r) 正常。\n';
    const data = Buffer.from(`${text}${'尾部'.repeat(5000)}`, 'utf8');
    writeFileSync(join(dir, filename), data);
    const media = [{ kind: 'file' as const, path: join(dir, filename), filename, mime_type: 'text/markdown', size: data.length }];
    const texts = await sendAndCheckChunks(b, reply(text, { omitted: 10_000, full_text_file: filename, media }));
    expect(texts.length).toBe(REPLY_MAX_PARTS);
    expect(texts.filter((t) => t.includes('回复过长')).length, 'one notice').toBe(1);
    expect(texts.at(-1)).toMatch(/省略约 \d+ 字符；全文见附件 完整回复-20260101-000000\.md）\s*$/);
    const uploads = b.fake.requests.filter((r) => p.uploadedFiles(r).some((f) => f.filename === filename && f.data.equals(data)));
    expect(uploads.length, `an upload carrying ${filename}`).toBeGreaterThanOrEqual(1);
  });

  it('a 70-byte button payload is sent within the platform limit and resolved back on the press', async () => {
    const b = bed();
    const token = `tok_${'x'.repeat(66)}`;
    expect(Buffer.byteLength(token)).toBe(70);
    b.fake.reset();
    const res = await b.adapter.send(
      p.target,
      reply('', {
        confirm: {
          token,
          prompt_md: '确认删除 **3** 行？',
          options: [
            { id: 'confirm', label: '确认', style: 'danger' },
            { id: 'cancel', label: '取消' },
          ],
          expires_at: new Date(b.clock.now().getTime() + 600_000).toISOString(),
        },
      }),
    );
    expect(res.ok, res.ok ? '' : res.error).toBe(true);
    const payloads = b.fake.requests.flatMap((r) => p.buttonPayloads(r));
    expect(payloads.length).toBeGreaterThanOrEqual(2);
    for (const d of payloads) expect(Buffer.byteLength(d, 'utf8')).toBeLessThanOrEqual(p.buttonLimitBytes);
    const texts = sends(b).map((r) => p.sentText(r) ?? '');
    expect(texts.join('\n'), 'prompt_md used when the text is empty').toContain('确认删除');
    const before = b.host.calls.length;
    const chat = p.target.chat_id;
    for (const d of payloads.slice(0, 2)) {
      const r = await b.deliver(opts.generators.buttonPress({ seq: nextSeq(), data: d, chatId: chat, actorId: chat }));
      expect(r.status).toBe(200);
    }
    const got = b.host.calls
      .slice(before)
      .filter((c) => c.result === 'accepted')
      .map((c) => c.msg);
    expect(got).toHaveLength(2);
    expect(got.map((m) => m.callback?.token)).toEqual([token, token]);
    expect(got.map((m) => m.callback?.action).sort()).toEqual(['cancel', 'confirm']);
  });

  it('429 with a short retry_after is honoured (retried after the wait, or handed to the outbox)', async () => {
    const b = bed();
    b.fake.reset();
    b.fake.script('*', p.sendPath, p.rateLimited(1), 1);
    const res = await b.adapter.send(p.target, reply('rate limited once'));
    if (res.ok) expect(sends(b)).toHaveLength(2);
    else {
      expect(res.retryable).toBe(true);
      expect(res.retry_after_ms).toBe(1000);
    }
  });

  it('429 with a long retry_after is bounded: no endless retrying, retry_after_ms surfaced', async () => {
    const b = bed();
    b.fake.reset();
    b.fake.script('*', p.sendPath, p.rateLimited(3600), 50);
    const res: SendResult = await b.adapter.send(p.target, reply('rate limited for an hour'));
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.retryable).toBe(true);
    expect(res.retry_after_ms).toBe(3_600_000);
    expect(res.error.length).toBeGreaterThan(0);
    expect(sends(b).length).toBeLessThanOrEqual(5);
  });

  /** An ASCII text of at least three chunks (any unit measures it alike). */
  const threeChunks = (): string => {
    const para = (i: number) => `part ${i}: ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(p.maxLength / 60))}`.trim();
    return Array.from({ length: 8 }, (_, i) => para(i)).join('\n\n');
  };
  const sentTexts = (b: Bed): string[] =>
    sends(b)
      .map((r) => p.sentText(r))
      .filter((t): t is string => t !== null);

  it('outbox resume: parts an earlier attempt delivered (SendOptions.partsDone) are not sent again', async () => {
    const b = bed();
    const text = threeChunks();
    b.fake.reset();
    const full = await b.adapter.send(p.target, reply(text));
    expect(full.ok).toBe(true);
    const all = sentTexts(b);
    expect(all.length).toBeGreaterThanOrEqual(3);
    b.fake.reset();
    const rest = await b.adapter.send(p.target, reply(text), { partsDone: 1 });
    expect(rest.ok).toBe(true);
    expect(sentTexts(b)).toEqual(all.slice(1));
  });

  it('outbox resume: a part failing after earlier parts went out reports parts_done; the retry sends only the rest', async () => {
    const b = bed();
    const text = threeChunks();
    b.fake.reset();
    expect((await b.adapter.send(p.target, reply(text))).ok).toBe(true);
    const all = sentTexts(b);
    b.fake.reset();
    let n = 0;
    b.fake.script('*', p.sendPath, () => (n++ === 0 ? { pass: true } : p.rateLimited(3600)), 50);
    const res = await b.adapter.send(p.target, reply(text));
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.parts_done).toBe(1);
    expect(res.retryable).toBe(true);
    b.fake.reset();
    const retry = await b.adapter.send(p.target, reply(text), { partsDone: res.parts_done });
    expect(retry.ok).toBe(true);
    expect(sentTexts(b)).toEqual(all.slice(1));
  });

  const failures = [
    ['a permanent failure', () => p.permanentFailure, false],
    ['a server failure (5xx)', () => p.serverFailure, true],
    ['a network failure', () => ({ destroy: true }), true],
  ] as const;
  for (const [what, replyOf, retryable] of failures) {
    it(`${what} is surfaced as {ok:false, retryable:${retryable}, error}`, async () => {
      const b = bed();
      b.fake.reset();
      b.fake.script('*', p.sendPath, replyOf(), 50);
      const res = await b.adapter.send(p.target, reply('will fail'));
      expect(res.ok).toBe(false);
      if (res.ok) return;
      expect(res.retryable).toBe(retryable);
      expect(typeof res.error).toBe('string');
      expect(res.error.length).toBeGreaterThan(0);
      expect(sends(b).length).toBeLessThanOrEqual(5);
    });
  }

  if (opts.attachments) {
    const probe = opts.attachments;
    it('an inbound file with a Chinese name is fetched with its bytes and name unchanged', async () => {
      const b = bed();
      const data = Buffer.from('报修单内容 bytes \u0000\u00ff', 'utf8');
      const filename = '报修单 2026（终）.pdf';
      const { att, msg } = probe.serve(b.fake, { filename, data, mime_type: 'application/pdf' });
      expect(att.filename).toBe(filename);
      const got = await b.adapter.fetchAttachment!(att, msg);
      expect(got.data.equals(data)).toBe(true);
      if (got.filename != null) expect(got.filename).toBe(filename);
    });
  }
}
