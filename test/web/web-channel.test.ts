/**
 * The web chat channel against a real express server and real ws clients, on both engines:
 * authentication, normalization, dedup, stored frames with seq and replay, uploads and files,
 * rate limit, sanitizing (docs/web-protocol.md; docs/results.md#5-how-a-result-is-shown).
 */
import { request } from 'node:http';
import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { migrate } from '../../src/store/migrate.ts';
import { conversationIdFor } from '../../adapters/web/index.ts';
import { issueWebToken } from '../../src/web-auth/tokens.ts';
import { describeEachEngine } from '../helpers/db.ts';
import { Client, signedIn, startRig, type Rig } from './helpers.ts';

const target = (chat_id: string) => ({ channel: 'web', account: 'default', chat_id });

async function upload(rig: Rig, auth: { token?: string; cookie?: string }, name: string, data: Buffer, type = 'application/pdf') {
  const fd = new FormData();
  fd.append('file', new Blob([data], { type }), name);
  const headers: Record<string, string> = {};
  if (auth.token) headers.authorization = `Bearer ${auth.token}`;
  if (auth.cookie) headers.cookie = auth.cookie;
  return fetch(`${rig.url}/api/uploads`, { method: 'POST', body: fd, headers });
}

describeEachEngine('web channel', (db) => {
  let rig: Rig;
  let aliceToken: string;
  let workerToken: string;
  let now = Date.parse('2025-01-15T08:00:00Z');
  beforeAll(async () => {
    await migrate(db());
    rig = await startRig(db(), { demo: true, clock: () => now });
    aliceToken = await issueWebToken(db(), 'demo', 'alice');
    workerToken = await issueWebToken(db(), 'demo', 'demo_worker');
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('refuses a hello without a token, with an unknown token and with a token of another org (4401)', async () => {
    for (const auth of [undefined, { scheme: 'bearer', token: 'wt_nope' }]) {
      const c = await Client.open(rig.wsUrl);
      c.send({ type: 'hello', ...(auth ? { auth } : {}) });
      const err = await c.next((f) => f.type === 'error');
      expect(err.code).toBe('unauthorized');
      expect(await c.closed()).toBe(4401);
    }
    const other = await issueWebToken(db(), 'other_org', 'alice');
    const { c, hello } = await signedIn(rig, { scheme: 'bearer', token: other });
    expect(hello.code).toBe('unauthorized');
    expect(await c.closed()).toBe(4401);
  });

  it('refuses every other frame before hello', async () => {
    const c = await Client.open(rig.wsUrl);
    c.send({ type: 'user.message', client_msg_id: 'x1', text: 'hi' });
    const err = await c.next((f) => f.type === 'error');
    expect(err.code).toBe('unauthorized');
    expect(rig.host.received.some((m) => m.message_id === 'x1')).toBe(false);
    c.close();
  });

  it('signs in with a bearer token: hello.ok carries the user, the stable conversation id and the limits', async () => {
    const { c, hello } = await signedIn(rig, { scheme: 'bearer', token: aliceToken });
    expect(hello.type).toBe('hello.ok');
    expect(hello.user).toEqual({ id: 'alice', display_name: 'Alice' });
    expect(hello.conversation_id).toBe(conversationIdFor('demo', 'alice'));
    expect(hello.conversation_id).toMatch(/^conv_[A-Za-z0-9_-]{22}$/);
    expect(hello.limits).toMatchObject({ max_text_chars: 16000, max_upload_bytes: 52428800, max_frames_per_10s: 20 });
    c.close();
  });

  it('expires a token by the injected clock', async () => {
    const t = await issueWebToken(db(), 'demo', 'alice', { expiresAt: new Date(now + 1000) });
    const ok = await signedIn(rig, { scheme: 'bearer', token: t });
    expect(ok.hello.type).toBe('hello.ok');
    ok.c.close();
    now += 2000;
    const late = await signedIn(rig, { scheme: 'bearer', token: t });
    expect(late.hello.code).toBe('unauthorized');
  });

  it('accepts a demo identity from the directory when demo is on, never an unknown contact', async () => {
    const ok = await signedIn(rig, { scheme: 'demo', contact: 'demo_reporter' });
    expect(ok.hello.user).toEqual({ id: 'demo_reporter', display_name: '报修人' });
    ok.c.close();
    const bad = await signedIn(rig, { scheme: 'demo', contact: 'mallory' });
    expect(bad.hello.code).toBe('unauthorized');
  });

  it('user.message → the host gets the normalized InboundMessage (raw_input verbatim, R-CTX-04, R-CTX-09) and the sender an ack and the echo reply', async () => {
    const { c, hello } = await signedIn(rig, { scheme: 'bearer', token: aliceToken });
    const text = '泵房3 压力多少？ *这不是 markdown* <b>x</b>\n第二行 ';
    c.send({ type: 'user.message', id: 'c_2', client_msg_id: 'cm_norm_1', text, reply_to: null, attachments: [] });
    const ack = await c.next((f) => f.type === 'user.ack');
    expect(ack).toMatchObject({ client_msg_id: 'cm_norm_1', status: 'accepted' });
    const msg = rig.host.received.find((m) => m.message_id === 'cm_norm_1')!;
    expect(msg).toMatchObject({
      channel: 'web',
      account: 'default',
      dedupe_key: 'web:alice:cm_norm_1',
      kind: 'message',
      chat: { id: hello.conversation_id, type: 'direct' },
      actor: { id: 'alice', display_name: 'Alice', is_bot: false },
      raw_input: text,
      attachments: [],
      addressed_to_bot: true,
      mentioned_bot: false,
      reply_to: null,
    });
    const reply = await c.next((f) => f.type === 'assistant.message');
    expect(reply).toMatchObject({ reply_to: 'cm_norm_1', final: true, conversation_id: hello.conversation_id });
    expect(reply.text).toBe(`echo: ${text}`);
    // the user's markup is shown, never interpreted
    expect(String(reply.html)).not.toContain('<b>x</b>');
    expect(String(reply.html)).toContain('&lt;b&gt;x&lt;/b&gt;');
    c.close();
  });

  it('a repeated client_msg_id is acked as duplicate and reaches the host once', async () => {
    const { c } = await signedIn(rig, { scheme: 'bearer', token: aliceToken });
    c.send({ type: 'user.message', client_msg_id: 'cm_dup', text: 'once' });
    c.send({ type: 'user.message', client_msg_id: 'cm_dup', text: 'once' });
    const acks = await c.count((f) => f.type === 'user.ack' && f.client_msg_id === 'cm_dup', 2);
    expect(acks.map((a) => a.status)).toEqual(['accepted', 'duplicate']);
    expect(rig.host.received.filter((m) => m.dedupe_key === 'web:alice:cm_dup')).toHaveLength(1);
    c.close();
  });

  it('the echo of a text with NUL or a lone surrogate is stored with U+FFFD, not refused (src/channel/storable.ts)', async () => {
    const { c } = await signedIn(rig, { scheme: 'bearer', token: aliceToken });
    const answer = rig.host.answer;
    rig.host.answer = () => null;
    try {
      c.send({ type: 'user.message', client_msg_id: 'cm_nul', text: 'a\u0000b\ud800 😀' });
      expect(await c.next((f) => f.type === 'user.ack' && f.client_msg_id === 'cm_nul')).toMatchObject({ status: 'accepted' });
      const echo = await c.next((f) => (f.type === 'user.echo' && f.client_msg_id === 'cm_nul') || f.type === 'error');
      expect(echo).toMatchObject({ type: 'user.echo', text: 'a\uFFFDb\uFFFD 😀' });
      expect(c.frames.filter((f) => f.type === 'error')).toEqual([]);
    } finally {
      rig.host.answer = answer;
    }
    c.close();
  });

  it('transient frames have distinct ids that are never a stored frame id (s_<seq>)', async () => {
    const { c, hello } = await signedIn(rig, { scheme: 'bearer', token: aliceToken });
    for (let i = 0; i < 3; i++) c.send({ type: 'ping' });
    const pongs = await c.count((f) => f.type === 'pong', 3);
    const ids = [hello, ...pongs].map((f) => String(f.id));
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) {
      expect(id).toMatch(/^s_[A-Za-z0-9_-]+$/);
      expect(id).not.toMatch(/^s_\d+$/);
    }
    c.close();
  });

  it("refuses text over 16 000 UTF-16 units and uploads that are not the sender's", async () => {
    const { c } = await signedIn(rig, { scheme: 'bearer', token: aliceToken });
    c.send({ type: 'user.message', client_msg_id: 'cm_long', text: '字'.repeat(16001) });
    expect((await c.next((f) => f.type === 'error' && f.ref === 'cm_long')).code).toBe('text_too_long');
    const res = await upload(rig, { token: workerToken }, 'w.txt', Buffer.from('worker'));
    const up = (await res.json()) as { upload_id: string };
    c.send({ type: 'user.message', client_msg_id: 'cm_steal', text: 'mine?', attachments: [{ upload_id: up.upload_id }] });
    expect((await c.next((f) => f.type === 'error' && f.ref === 'cm_steal')).code).toBe('unknown_upload');
    expect(rig.host.received.some((m) => m.message_id === 'cm_steal' || m.message_id === 'cm_long')).toBe(false);
    c.close();
  });

  it('confirm.response becomes a callback and stop becomes /stop', async () => {
    const { c, hello } = await signedIn(rig, { scheme: 'bearer', token: aliceToken });
    c.send({ type: 'confirm.response', id: 'c_9', confirm_token: 'tok_abc', choice: 'confirm' });
    await c.next((f) => f.type === 'user.ack' && f.client_msg_id === 'c_9');
    const cb = rig.host.received.find((m) => m.callback?.token === 'tok_abc')!;
    expect(cb).toMatchObject({
      kind: 'callback',
      raw_input: null,
      callback: { action: 'confirm', token: 'tok_abc' },
      chat: { id: hello.conversation_id },
    });
    c.send({ type: 'stop', client_msg_id: 'stop_1' });
    await c.next((f) => f.type === 'user.ack' && f.client_msg_id === 'stop_1');
    const stop = rig.host.received.find((m) => m.message_id === 'stop_1')!;
    expect(stop).toMatchObject({ kind: 'message', raw_input: '/stop', actor: { id: 'alice' } });
    c.close();
  });

  it('send stores frames with increasing seq (message, media, confirm) and pushes them; a contact key target reaches the same conversation', async () => {
    const conv = conversationIdFor('demo', 'demo_worker');
    const { c, hello } = await signedIn(rig, { scheme: 'bearer', token: workerToken });
    const start = Number(hello.seq);
    const r1 = await rig.channel.send(target(conv), {
      kind: 'reply',
      text: '**完成**',
      format: 'markdown',
      display_md: '| a | b |\n|---|---|\n| 1 | 2 |',
      media: [{ kind: 'image', path: '/x/p.png', filename: '趋势.png', mime_type: 'image/png', size: 3, file_id: 'att_123' }],
      confirm: {
        token: 'tok_1',
        prompt_md: '确认删除？',
        options: [
          { id: 'confirm', label: '确认', style: 'danger' },
          { id: 'cancel', label: '取消' },
        ],
        expires_at: '2025-01-15T08:05:00Z',
      },
      reply_to: 'cm_1',
      final: true,
    });
    expect(r1).toEqual({ ok: true, message_ids: [String(start + 1), String(start + 2), String(start + 3)] });
    const r2 = await rig.channel.send(target('demo_worker'), { kind: 'notice', text: 'to the contact', format: 'plain', final: true });
    expect(r2).toEqual({ ok: true, message_ids: [String(start + 4)] });
    const frames = await c.count((f) => typeof f.seq === 'number' && f.type !== 'hello.ok', 4);
    expect(frames.map((f) => [f.type, f.seq])).toEqual([
      ['assistant.message', start + 1],
      ['assistant.media', start + 2],
      ['confirm.request', start + 3],
      ['assistant.message', start + 4],
    ]);
    expect(String(frames[0]!.html)).toContain('<strong>完成</strong>');
    expect(String(frames[0]!.html)).toContain('<table>');
    expect(frames[0]!.display_md).toBe('| a | b |\n|---|---|\n| 1 | 2 |');
    expect(frames[1]!.media).toMatchObject({ kind: 'image', url: '/files/att_123', filename: '趋势.png' });
    expect(frames[2]).toMatchObject({ confirm_token: 'tok_1', prompt_md: '确认删除？', expires_at: '2025-01-15T08:05:00Z' });
    expect(frames[3]).toMatchObject({ text: 'to the contact', html: null, conversation_id: conv });
    c.close();
  });

  it('an unknown conversation id is a permanent send failure', async () => {
    const r = await rig.channel.send(target('conv_AAAAAAAAAAAAAAAAAAAAAA'), { kind: 'reply', text: 'x', format: 'plain' });
    expect(r).toMatchObject({ ok: false, retryable: false });
  });

  it('reconnecting with last_server_seq replays exactly the missed frames; without resume the history', async () => {
    const conv = conversationIdFor('demo', 'alice');
    const first = await signedIn(rig, { scheme: 'bearer', token: aliceToken });
    await rig.channel.send(target(conv), { kind: 'reply', text: 'seen', format: 'plain', final: true });
    const seen = await first.c.next((f) => f.type === 'assistant.message' && f.text === 'seen');
    first.c.close();
    await first.c.closed();
    for (const t of ['missed 1', 'missed 2', 'missed 3'])
      await rig.channel.send(target(conv), { kind: 'reply', text: t, format: 'plain', final: true });
    const again = await signedIn(rig, { scheme: 'bearer', token: aliceToken }, Number(seen.seq));
    const replayed = await again.c.count((f) => f.type === 'assistant.message', 3);
    await rig.channel.send(target(conv), { kind: 'reply', text: 'live', format: 'plain', final: true });
    await again.c.next((f) => f.type === 'assistant.message' && f.text === 'live');
    const all = again.c.frames.filter((f) => f.type === 'assistant.message');
    expect(all.map((f) => f.text)).toEqual(['missed 1', 'missed 2', 'missed 3', 'live']);
    expect(all.map((f) => f.seq)).toEqual([1, 2, 3, 4].map((i) => Number(seen.seq) + i));
    expect(replayed).toHaveLength(3);
    again.c.close();
    const fresh = await signedIn(rig, { scheme: 'bearer', token: aliceToken });
    const history = await fresh.c.count((f) => f.type === 'assistant.message' && f.text === 'live', 1);
    expect(history).toHaveLength(1);
    expect(fresh.c.frames.some((f) => f.text === 'seen')).toBe(true);
    fresh.c.close();
  });

  it('uploads keep the Chinese file name exactly; GET /files serves it to the owner only (404 for anyone else)', async () => {
    const name = '报修单 （第2版）.pdf';
    const data = Buffer.from('%PDF-1.4 fake');
    const res = await upload(rig, { token: aliceToken }, name, data);
    expect(res.status).toBe(201);
    const up = (await res.json()) as { upload_id: string; filename: string; mime_type: string; size: number; sha256: string };
    expect(up).toMatchObject({ filename: name, mime_type: 'application/pdf', size: data.length });
    expect(up.upload_id).toMatch(/^up_[A-Za-z0-9_-]{22}$/);
    expect(up.sha256).toMatch(/^[0-9a-f]{64}$/);

    const own = await fetch(`${rig.url}/files/${up.upload_id}`, { headers: { authorization: `Bearer ${aliceToken}` } });
    expect(own.status).toBe(200);
    expect(Buffer.from(await own.arrayBuffer())).toEqual(data);
    const cd = own.headers.get('content-disposition')!;
    expect(cd.startsWith('attachment;')).toBe(true);
    const star = /filename\*=UTF-8''(.+)$/.exec(cd)![1]!;
    expect(decodeURIComponent(star)).toBe(name);
    expect(own.headers.get('x-content-type-options')).toBe('nosniff');

    expect((await fetch(`${rig.url}/files/${up.upload_id}`, { headers: { authorization: `Bearer ${workerToken}` } })).status).toBe(404);
    expect((await fetch(`${rig.url}/files/${up.upload_id}`)).status).toBe(404);
    expect((await upload(rig, {}, 'x.txt', Buffer.from('x'))).status).toBe(401);

    // the message carries it; the adapter fetches the bytes for the sender only
    const { c } = await signedIn(rig, { scheme: 'bearer', token: aliceToken });
    c.send({
      type: 'user.message',
      client_msg_id: 'cm_file',
      text: '请处理',
      attachments: [{ upload_id: up.upload_id, filename: 'spoofed.exe' }],
    });
    await c.next((f) => f.type === 'user.ack' && f.client_msg_id === 'cm_file');
    const msg = rig.host.received.find((m) => m.message_id === 'cm_file')!;
    expect(msg.attachments).toEqual([
      { type: 'file', filename: name, mime_type: 'application/pdf', size: data.length, platform_ref: { upload_id: up.upload_id } },
    ]);
    const fetched = await rig.channel.fetchAttachment!(msg.attachments[0]!, msg);
    expect(fetched.data).toEqual(data);
    await expect(
      rig.channel.fetchAttachment!(msg.attachments[0]!, { ...msg, actor: { ...msg.actor, id: 'demo_worker' } }),
    ).rejects.toThrow();
    c.close();
  });

  it('serves session attachments to the session owner only: images inline, nothing outside the workspace', async () => {
    const ws = join(rig.dataDir, 'ws_test');
    await mkdir(ws, { recursive: true });
    await writeFile(join(ws, '图.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    await writeFile(join(rig.dataDir, 'secret.txt'), 'secret');
    await db().query(
      `INSERT INTO skillgate.sessions (id, role_id, org_id, channel, owner_key, workspace_dir) VALUES ('c_websess', 'default', 'demo', 'web', 'alice', $1)`,
      [ws],
    );
    await db().query(
      `INSERT INTO skillgate.attachments (id, session_id, ref, type, seq, filename, local_path, mime, origin)
       VALUES ('AttImg0123456789abcdef', 'c_websess', 'img_1', 'image', 1, '图.png', $1, 'image/png', 'artifact'),
              ('AttOut0123456789abcdef', 'c_websess', 'file_1', 'file', 1, 'secret.txt', $2, 'text/plain', 'artifact')`,
      [join(ws, '图.png'), join(rig.dataDir, 'secret.txt')],
    );
    const img = await fetch(`${rig.url}/files/AttImg0123456789abcdef`, { headers: { authorization: `Bearer ${aliceToken}` } });
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(img.headers.get('content-disposition')).toMatch(/^inline; .*filename\*=UTF-8''%E5%9B%BE\.png$/);
    expect((await fetch(`${rig.url}/files/AttImg0123456789abcdef`, { headers: { authorization: `Bearer ${workerToken}` } })).status).toBe(
      404,
    );
    expect((await fetch(`${rig.url}/files/AttOut0123456789abcdef`, { headers: { authorization: `Bearer ${aliceToken}` } })).status).toBe(
      404,
    );
  });

  it('answers the 21st frame within 10 s with rate_limited and retry_after_ms (injected clock)', async () => {
    const { c } = await signedIn(rig, { scheme: 'bearer', token: aliceToken }); // hello = frame 1
    for (let i = 0; i < 19; i++) c.send({ type: 'ping' });
    await c.count((f) => f.type === 'pong', 19);
    c.send({ type: 'ping' });
    const err = await c.next((f) => f.type === 'error');
    expect(err.code).toBe('rate_limited');
    expect(Number(err.retry_after_ms)).toBeGreaterThan(0);
    expect(Number(err.retry_after_ms)).toBeLessThanOrEqual(10_000);
    now += 10_001;
    c.send({ type: 'ping' });
    await c.count((f) => f.type === 'pong', 20);
    c.close();
  });

  it('XSS: <script> and onerror in a bot message never reach the page in html (D-22 rich rendering sanitized)', async () => {
    const conv = conversationIdFor('demo', 'alice');
    const { c } = await signedIn(rig, { scheme: 'bearer', token: aliceToken }, 10_000);
    const evil = 'hi <script>window.__x=1</script> <img src=x onerror="window.__x=1"> [a](javascript:alert(1))';
    await rig.channel.send(target(conv), {
      kind: 'reply',
      text: evil,
      format: 'markdown',
      display_md: '<svg onload=alert(1)>',
      final: true,
    });
    const f = await c.next((x) => x.type === 'assistant.message' && String(x.text).includes('script'));
    const html = String(f.html);
    expect(html).not.toMatch(/<(script|img|svg)\b/i); // no such element, only escaped text
    expect(html).not.toMatch(/<[^>]*\son\w+\s*=/i); // no event handler on any element
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).toContain('&lt;script&gt;');
    c.close();
  });

  it('HTTP: the page has a strict CSP; sign-in sets an HttpOnly SameSite=Strict cookie that works for ws, uploads and files', async () => {
    const page = await fetch(`${rig.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(await page.text()).toContain('data-testid="chat-messages"');
    expect((await fetch(`${rig.url}/assets/purify.min.js`)).status).toBe(200);

    const cfg = (await (await fetch(`${rig.url}/api/web/config`)).json()) as { demo: unknown; me: unknown };
    expect(cfg).toMatchObject({
      demo: [
        { contact_key: 'demo_reporter', name: '报修人' },
        { contact_key: 'demo_worker', name: '维修工' },
      ],
      me: null,
    });

    const refused = await fetch(`${rig.url}/api/web/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ demo: 'nobody' }),
    });
    expect(refused.status).toBe(401);
    const res = await fetch(`${rig.url}/api/web/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ demo: 'demo_reporter' }),
    });
    expect(res.status).toBe(200);
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const cookie = setCookie.split(';')[0]!;
    const me = (await (await fetch(`${rig.url}/api/web/config`, { headers: { cookie } })).json()) as { me: unknown };
    expect(me.me).toEqual({ contact_key: 'demo_reporter', name: '报修人' });

    const c = await Client.open(rig.wsUrl, { cookie });
    c.send({ type: 'hello', auth: { scheme: 'cookie' } });
    expect((await c.next((f) => f.type === 'hello.ok')).user).toEqual({ id: 'demo_reporter', display_name: '报修人' });
    c.close();
    expect((await upload(rig, { cookie }, 'a.txt', Buffer.from('a'), 'text/plain')).status).toBe(201);

    const cross = await fetch(`${rig.url}/api/uploads`, { method: 'POST', headers: { cookie, origin: 'http://evil.example' }, body: 'x' });
    expect(cross.status).toBe(403);
  });

  it('an upload declared over the limit is refused with 413 and the limit in bytes (the page words it in its language)', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${rig.url}/api/uploads`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${aliceToken}`,
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(60 * 1024 * 1024),
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.write('--x\r\n');
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ limit_bytes: 50 * 1024 * 1024 });
  });
});

describeEachEngine('web channel without demo', (db) => {
  let rig: Rig;
  beforeAll(async () => {
    await migrate(db());
    rig = await startRig(db(), { demo: false });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('refuses demo identities over ws and HTTP and offers no picker', async () => {
    const { c, hello } = await signedIn(rig, { scheme: 'demo', contact: 'demo_reporter' });
    expect(hello.code).toBe('unauthorized');
    expect(await c.closed()).toBe(4401);
    const res = await fetch(`${rig.url}/api/web/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ demo: 'demo_reporter' }),
    });
    expect(res.status).toBe(401);
    const cfg = (await (await fetch(`${rig.url}/api/web/config`)).json()) as { demo: unknown };
    expect(cfg.demo).toBeNull();
  });
});
