/**
 * Feishu webhook: every fixture of test/fixtures/adapters/feishu
 * through `handleWebhook` in plain and in encrypted+signed form, with the real SDK client doing
 * the contact / bot / chat lookups against a loopback fake Open API; and the verification rules
 * of docs/adapter-authoring.md#verification (401 / 400 / 200, replay window on an injected clock).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFeishuAdapter, type FeishuAdapter } from '../../../adapters/feishu/index.ts';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { createWebhookRouter } from '../../../src/channel/webhooks.ts';
import { createLogger } from '../../../src/log/logger.ts';
import type { InboundMessage } from '../../../src/channel/types.ts';
import { legacyCardSignature, eventSignature, encryptEvent } from '../../../adapters/feishu/verify.ts';
import { startFakePlatform, type FakePlatform } from '../../../adapters/contract/index.ts';
import { contentOf, installOpenApi } from './open-api.ts';
import { CASES, EXPECTED, FIXTURE_NOW_MS, SECRETS, encryptedRequest, fixture, plainRequest, recordingHost } from './helpers.ts';

const log = createLogger({ level: 'silent', pretty: false });
let fake: FakePlatform;
let plainAdapter: FeishuAdapter;
let encAdapter: FeishuAdapter;
let now = FIXTURE_NOW_MS;

beforeAll(async () => {
  fake = await startFakePlatform();
  installOpenApi(fake);
  const base = { appId: SECRETS.app_id, appSecret: 'secret', domain: fake.baseUrl, mode: 'webhook' as const, log, now: () => now };
  plainAdapter = createFeishuAdapter({ ...base, account: 'default', verificationToken: SECRETS.verification_token });
  encAdapter = createFeishuAdapter({
    ...base,
    account: 'enc',
    verificationToken: SECRETS.verification_token,
    encryptKey: SECRETS.encrypt_key,
  });
});
afterAll(async () => {
  await fake.close();
});

/** The expected fields of a case that the normalized message must equal. */
function expectNormalized(msg: InboundMessage, exp: Record<string, unknown>): void {
  expect(msg.dedupe_key).toBe(exp.dedupe_key);
  if ('message_id' in exp) expect(msg.message_id).toBe(exp.message_id);
  expect(msg.raw_input).toBe(exp.raw_input);
  if ('display_input' in exp) expect(msg.display_input).toBe(exp.display_input);
  if ('input_without_bot_mention' in exp) expect(msg.input_without_bot_mention).toBe(exp.input_without_bot_mention);
  expect(msg.attachments).toEqual(exp.attachments);
  const actor = exp.actor as Record<string, unknown>;
  expect(msg.actor.id).toBe(actor.id);
  expect(msg.actor.ids).toEqual(actor.ids);
  expect(msg.actor.is_bot).toBe(actor.is_bot);
  expect(msg.actor.display_name).toBe(actor.display_name ?? '');
  expect(msg.chat).toEqual(exp.chat);
  expect(msg.mentioned_bot).toBe(exp.mentioned_bot);
  expect(msg.addressed_to_bot).toBe(exp.addressed_to_bot);
  expect(msg.reply_to).toEqual(exp.reply_to);
  if (exp.callback) {
    const cb = exp.callback as { action: string; token: string; card_message_id: string };
    expect(msg.kind).toBe('callback');
    expect(msg.callback).toMatchObject({ action: cb.action, token: cb.token, card_message_id: cb.card_message_id });
  }
}

describe('Feishu golden cases (test/fixtures/adapters/feishu)', () => {
  for (const form of ['plain', 'encrypted'] as const) {
    it(`every case normalizes as expected.json says (${form} delivery; R-CTX-04 raw_input verbatim)`, async () => {
      const adapter = form === 'plain' ? plainAdapter : encAdapter;
      const host = recordingHost(adapter);
      fake.reset();
      for (const name of CASES) {
        const exp = EXPECTED.cases[name]!;
        const req =
          form === 'plain' ? plainRequest(fixture(name)) : encryptedRequest(fixture(name), { timestampS: Math.floor(now / 1000) });
        const before = host.received.length;
        const res = await adapter.handleWebhook(req, host);
        expect(res.status, name).toBe(200);
        switch (exp.action) {
          case 'respond_challenge':
            expect(res.body).toEqual((exp.response as { body: unknown }).body);
            expect(host.received.length).toBe(before);
            break;
          case 'process':
          case 'process_callback': {
            expect(host.received.length, name).toBe(before + 1);
            expectNormalized(host.received.at(-1)!, exp);
            if (exp.action === 'process_callback') expect(res.body).toMatchObject({ toast: { type: 'success' } });
            break;
          }
          case 'drop_duplicate':
            expect(host.received.length, name).toBe(before);
            expect(host.seen.has(String(exp.dedupe_key))).toBe(true);
            break;
          case 'ignore':
          case 'unsupported':
            expect(host.received.length, name).toBe(before);
            break;
          default:
            throw new Error(`unknown action ${exp.action}`);
        }
      }
      // The sticker got a polite notice, as a reply to it; nothing else was sent.
      const sent = fake.calls(/^\/open-apis\/im\/v1\/messages/, 'POST');
      expect(sent.map((r) => r.path)).toEqual(['/open-apis/im/v1/messages/om_test_0000000000000000000000010/reply']);
      expect(String(contentOf(sent[0]!)!.content.text)).toContain('暂不支持');
    });
  }
});

describe('Feishu webhook verification', () => {
  const body = fixture('p2p_text.json');
  const ts = (): number => Math.floor(now / 1000);

  it('plain mode: a missing or wrong verification token is 401 and nothing is received', async () => {
    const host = recordingHost();
    const noToken = JSON.parse(body.toString()) as { header: Record<string, unknown> };
    delete noToken.header.token;
    expect((await plainAdapter.handleWebhook(plainRequest(JSON.stringify(noToken)), host)).status).toBe(401);
    noToken.header.token = 'v_test_verification_token_0002';
    expect((await plainAdapter.handleWebhook(plainRequest(JSON.stringify(noToken)), host)).status).toBe(401);
    const challenge = { challenge: 'c', token: 'nope', type: 'url_verification' };
    expect((await plainAdapter.handleWebhook(plainRequest(JSON.stringify(challenge)), host)).status).toBe(401);
    expect(host.received).toEqual([]);
  });

  it('encrypted mode: wrong signature, missing signature, plaintext body, a foreign key → 401', async () => {
    const host = recordingHost();
    const good = encryptedRequest(body, { timestampS: ts() });
    expect(
      (await encAdapter.handleWebhook({ ...good, headers: { ...good.headers, 'x-lark-signature': 'a'.repeat(64) } }, host)).status,
    ).toBe(401);
    const { 'x-lark-signature': _s, ...unsigned } = good.headers;
    expect((await encAdapter.handleWebhook({ ...good, headers: unsigned }, host)).status).toBe(401);
    expect((await encAdapter.handleWebhook(plainRequest(body), host)).status).toBe(401);
    // Signed with the right key but over other bytes (one byte changed after signing).
    const tampered = Buffer.from(good.body);
    tampered[tampered.length - 3] = tampered[tampered.length - 3]! ^ 1;
    expect((await encAdapter.handleWebhook({ ...good, body: tampered }, host)).status).toBe(401);
    expect(host.received).toEqual([]);
    // Control: the untouched request is accepted.
    expect((await encAdapter.handleWebhook(good, host)).status).toBe(200);
    expect(host.received).toHaveLength(1);
  });

  it('replay window: a signed request 301 s old or 301 s ahead is 401; 299 s is fine (injected clock)', async () => {
    const host = recordingHost();
    const at = (offsetS: number, id: string) => {
      const ev = JSON.parse(body.toString()) as { header: Record<string, unknown> };
      ev.header.event_id = id;
      return encryptedRequest(JSON.stringify(ev), { timestampS: ts() + offsetS });
    };
    expect((await encAdapter.handleWebhook(at(-301, 'old'), host)).status).toBe(401);
    expect((await encAdapter.handleWebhook(at(301, 'future'), host)).status).toBe(401);
    expect((await encAdapter.handleWebhook(at(-299, 'recent'), host)).status).toBe(200);
    expect(host.received.map((m) => m.dedupe_key)).toEqual(['feishu:event:recent']);
    // The same request presented later than the window is refused (clock moved on).
    const req = at(0, 'replayed');
    now += 301_000;
    try {
      expect((await encAdapter.handleWebhook(req, host)).status).toBe(401);
    } finally {
      now -= 301_000;
    }
  });

  it('URL verification: plain form answers the challenge; encrypted form (unsigned) answers after decrypting with our key', async () => {
    const host = recordingHost();
    const plain = await plainAdapter.handleWebhook(plainRequest(fixture('url_verification_plain.json')), host);
    expect(plain).toMatchObject({ status: 200, body: { challenge: 'challenge_test_0001' } });
    const enc = { encrypt: encryptEvent(fixture('url_verification_plain.json').toString(), SECRETS.encrypt_key) };
    const res = await encAdapter.handleWebhook(plainRequest(JSON.stringify(enc)), host);
    expect(res).toMatchObject({ status: 200, body: { challenge: 'challenge_test_0001' } });
    // Under another key the handshake is refused.
    const foreign = { encrypt: encryptEvent(fixture('url_verification_plain.json').toString(), 'other-key') };
    expect((await encAdapter.handleWebhook(plainRequest(JSON.stringify(foreign)), host)).status).toBe(401);
    // An unsigned encrypted body that is not a handshake is refused.
    const event = { encrypt: encryptEvent(body.toString(), SECRETS.encrypt_key) };
    expect((await encAdapter.handleWebhook(plainRequest(JSON.stringify(event)), host)).status).toBe(401);
    expect(host.received).toEqual([]);
  });

  it('an unsigned body that is not a JSON object is 401 (never parsed further, never decrypted)', async () => {
    const host = recordingHost();
    for (const adapter of [plainAdapter, encAdapter]) {
      expect((await adapter.handleWebhook(plainRequest('{not json'), host)).status).toBe(401);
      expect((await adapter.handleWebhook(plainRequest('[1,2]'), host)).status).toBe(401);
    }
    // With an encrypt key, an unsigned object other than exactly {encrypt} is refused before decrypting.
    const extra = {
      encrypt: encryptEvent(fixture('url_verification_plain.json').toString(), SECRETS.encrypt_key),
      type: 'url_verification',
    };
    expect((await encAdapter.handleWebhook(plainRequest(JSON.stringify(extra)), host)).status).toBe(401);
    expect(host.received).toEqual([]);
  });

  it('signed unparseable bodies are 400; event types we do not handle and v1 events are 200 and ignored', async () => {
    const host = recordingHost();
    const t = String(ts());
    const garbage = Buffer.from('{not json');
    const legacySigned = plainRequest(garbage, {
      'x-lark-request-timestamp': t,
      'x-lark-request-nonce': 'n',
      'x-lark-signature': legacyCardSignature(t, 'n', SECRETS.verification_token, garbage),
    });
    expect((await plainAdapter.handleWebhook(legacySigned, host)).status).toBe(400);
    const signedGarbage = encryptedRequest('x', { timestampS: ts() });
    const b = Buffer.from(JSON.stringify({ encrypt: 'AAAA' }));
    const sig = eventSignature(signedGarbage.headers['x-lark-request-timestamp']!, 'n', SECRETS.encrypt_key, b);
    const bad = plainRequest(b, {
      'x-lark-request-timestamp': signedGarbage.headers['x-lark-request-timestamp']!,
      'x-lark-request-nonce': 'n',
      'x-lark-signature': sig,
    });
    expect((await encAdapter.handleWebhook(bad, host)).status).toBe(400);
    const other = {
      schema: '2.0',
      header: { event_id: 'e1', event_type: 'im.chat.member.bot.added_v1', token: SECRETS.verification_token },
      event: {},
    };
    expect(await plainAdapter.handleWebhook(plainRequest(JSON.stringify(other)), host)).toMatchObject({ status: 200 });
    const v1 = { uuid: 'u1', token: SECRETS.verification_token, ts: '1', type: 'event_callback', event: { type: 'message' } };
    expect(await plainAdapter.handleWebhook(plainRequest(JSON.stringify(v1)), host)).toMatchObject({ status: 200 });
    expect(host.received).toEqual([]);
  });

  it('legacy card callbacks are accepted only with the SHA-1 signature over the raw body', async () => {
    const host = recordingHost();
    const legacy = Buffer.from(
      JSON.stringify({
        open_id: 'ou_test_user_000000000000000000001',
        user_id: 'test_user_001',
        open_message_id: 'om_test_card_0000000000000000001',
        open_chat_id: 'oc_test_p2p_000000000000000000001',
        tenant_key: 't',
        token: 'c-card-update-token',
        action: { value: { action: 'confirm', confirm_token: 'tok_legacy' }, tag: 'button' },
      }),
    );
    const t = String(ts());
    const headers = {
      'x-lark-request-timestamp': t,
      'x-lark-request-nonce': 'n1',
      'x-lark-signature': legacyCardSignature(t, 'n1', SECRETS.verification_token, legacy),
    };
    expect((await plainAdapter.handleWebhook(plainRequest(legacy, { ...headers, 'x-lark-signature': 'f'.repeat(40) }), host)).status).toBe(
      401,
    );
    // The legacy signature does not authorize anything but a legacy card callback.
    const event = fixture('p2p_text.json');
    const evHeaders = { ...headers, 'x-lark-signature': legacyCardSignature(t, 'n1', SECRETS.verification_token, event) };
    expect((await plainAdapter.handleWebhook(plainRequest(event, evHeaders), host)).status).toBe(401);
    const res = await plainAdapter.handleWebhook(plainRequest(legacy, headers), host);
    expect(res.status).toBe(200);
    expect(host.received).toHaveLength(1);
    expect(host.received[0]).toMatchObject({
      kind: 'callback',
      callback: { action: 'confirm', token: 'tok_legacy' },
      chat: { type: 'direct' },
      actor: { display_name: 'Test User' },
    });
  });

  it('a webhook account with neither token nor key refuses everything (fail closed)', async () => {
    const open = createFeishuAdapter({ account: 'x', appId: 'a', appSecret: 's', domain: fake.baseUrl, mode: 'ws', log });
    expect((await open.handleWebhook(plainRequest(fixture('p2p_text.json')), recordingHost())).status).toBe(401);
  });
});

describe('Feishu through the real webhook route (raw body)', () => {
  it('a pretty-printed encrypted body is verified over its exact bytes; a re-serialized copy of it is refused', async () => {
    const host = recordingHost();
    const app = express();
    app.use(createWebhookRouter({ adapterFor: (c, a) => (c === 'feishu' && a === 'enc' ? encAdapter : undefined), host: () => host, log }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/feishu/enc`;
      const body = Buffer.from(`{\n  "encrypt" : "${encryptEvent(fixture('p2p_text.json').toString(), SECRETS.encrypt_key)}"\n}\n`);
      const t = String(Math.floor(now / 1000));
      const headers = {
        'content-type': 'application/json',
        'x-lark-request-timestamp': t,
        'x-lark-request-nonce': 'n9',
        'x-lark-signature': eventSignature(t, 'n9', SECRETS.encrypt_key, body),
      };
      const compact = Buffer.from(JSON.stringify(JSON.parse(body.toString())));
      expect((await fetch(url, { method: 'POST', headers, body: compact })).status).toBe(401);
      const res = await fetch(url, { method: 'POST', headers, body });
      expect(res.status).toBe(200);
      expect(host.received.map((m) => m.dedupe_key)).toEqual(['feishu:event:test_evt_0000000000000000000000001']);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
