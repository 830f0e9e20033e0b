/** Shared bits of the Feishu adapter tests: fixtures, secrets, signed/encrypted requests, a recording host. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdapterHost, ChannelAdapter, InboundMessage, WebhookRequest } from '../../../src/channel/types.ts';
import { eventNoticeItem, type OutboxItem } from '../../../src/outbox/index.ts';
import { encryptEvent, eventSignature } from '../../../adapters/feishu/verify.ts';

const DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'adapters', 'feishu');

/** The expected.json of the Feishu fixtures (secrets + cases by file name). */
export const EXPECTED = JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8')) as {
  secrets: { app_id: string; verification_token: string; encrypt_key: string; bot_open_id: string; directory: Record<string, string> };
  cases: Record<string, Record<string, unknown> & { action: string }>;
};
export const SECRETS = EXPECTED.secrets;

/** The raw bytes of a fixture file. */
export function fixture(name: string): Buffer {
  return readFileSync(join(DIR, name));
}

/** Fixture names of the `cases` (in file order of expected.json). */
export const CASES = Object.keys(EXPECTED.cases);

/** A plain (unencrypted, unsigned) webhook request. */
export function plainRequest(body: Buffer | string, headers: Record<string, string> = {}): WebhookRequest {
  return {
    method: 'POST',
    path: '',
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    query: {},
    body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  };
}

/** The encrypted + signed form of `plain` (what Feishu sends with an Encrypt Key). */
export function encryptedRequest(
  plain: Buffer | string,
  opts: { key?: string; timestampS: number; nonce?: string; signKey?: string },
): WebhookRequest {
  const key = opts.key ?? SECRETS.encrypt_key;
  const body = Buffer.from(JSON.stringify({ encrypt: encryptEvent(plain.toString(), key) }));
  const ts = String(opts.timestampS);
  const nonce = opts.nonce ?? 'nonce-123';
  return plainRequest(body, {
    'x-lark-request-timestamp': ts,
    'x-lark-request-nonce': nonce,
    'x-lark-signature': eventSignature(ts, nonce, opts.signKey ?? key, body),
  });
}

/**
 * A host that records what it received and dedups by dedupe_key in memory (tests without a
 * database). Notices are recorded and, with `deliver`, sent at once through that adapter, as the
 * core's outbox would (once per event key).
 */
export function recordingHost(
  deliver?: ChannelAdapter,
): AdapterHost & { received: InboundMessage[]; seen: Set<string>; notices: OutboxItem[] } {
  const received: InboundMessage[] = [];
  const seen = new Set<string>();
  const notices: OutboxItem[] = [];
  return {
    received,
    seen,
    notices,
    async receive(msg) {
      if (seen.has(msg.dedupe_key)) return 'duplicate';
      seen.add(msg.dedupe_key);
      received.push(msg);
      return 'accepted';
    },
    async notice(event, message) {
      const item = eventNoticeItem(event, message);
      if (notices.some((n) => n.idempotency_key === item.idempotency_key)) return;
      notices.push(item);
      if (deliver) await deliver.send(item.target, item.message, { idempotencyKey: item.idempotency_key ?? null });
    },
  };
}

/** Fixed clock: the fixtures' time (2025-01-15, create_time ≈ 1736928120 s). */
export const FIXTURE_NOW_MS = 1_736_928_200_000;
