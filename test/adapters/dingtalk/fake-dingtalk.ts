/**
 * DingTalk's HTTP APIs on the contract kit's loopback fake, speaking the wire format the adapter
 * uses: the new API (`/v1.0/oauth2/accessToken`,
 * robot sends answering `{processQueryKey}`, `messageFiles/download` answering `{downloadUrl}`;
 * a missing/wrong `x-acs-dingtalk-access-token` → HTTP 401 `{code: "InvalidAuthentication"}`),
 * the old API (`/media/upload` multipart `media` → `{errcode: 0, media_id}`) and the session
 * webhook (`/robot/sendBySession` → `{errcode: 0, errmsg: "ok"}`). Both roots point at the fake.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakePlatform, FakeReply, RecordedRequest } from '../../../adapters/contract/index.ts';
import { callbackSign } from '../../../adapters/dingtalk/verify.ts';
import type { WebhookRequest } from '../../../src/channel/types.ts';

export const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'adapters', 'dingtalk');

/** expected.json (dingtalk part) copied from the platform fixtures. */
export const EXPECTED = JSON.parse(readFileSync(join(FIXTURES, 'expected.json'), 'utf8')) as {
  secrets: { app_secret: string; robot_code: string; chatbot_user_id: string };
  cases: Record<string, Record<string, unknown> & { request: { headers: Record<string, string> } }>;
};
export const SECRETS = EXPECTED.secrets;
export const APP_KEY = 'dingtestappkey0001';
/** The token the fake issues (a new one after {@link DingtalkState.rotate}). */
export interface DingtalkState {
  token: string;
  /** Issue a new token; the old one is then refused with 401. */
  rotate(): void;
  /** Token requests answered. */
  tokenCalls: number;
}

/** The raw bytes of a copied fixture. */
export function fixture(name: string): Buffer {
  return readFileSync(join(FIXTURES, name));
}

let signSeq = 0;

/**
 * A distinct millisecond at most 999 ms before `atMs`: DingTalk's sign covers only the
 * timestamp, and a (timestamp, sign) pair is accepted with one body only, so each signed
 * request of a test gets its own timestamp (as each real callback has).
 */
export function distinctMs(atMs: number): number {
  return atMs - (signSeq++ % 1000);
}

/** A callback request signed for (about) `atMs` (headers as DingTalk sends them; see {@link distinctMs}). */
export function signedRequest(body: Buffer | string | object, atMs: number, secret = SECRETS.app_secret): WebhookRequest {
  const raw = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const ts = String(distinctMs(atMs));
  return {
    method: 'POST',
    path: '',
    headers: { 'content-type': 'application/json; charset=utf-8', timestamp: ts, sign: callbackSign(ts, secret) },
    query: {},
    body: raw,
  };
}

/** The parsed msgParam of an Open API send (null when not one). */
export function msgParamOf(req: RecordedRequest): Record<string, unknown> | null {
  const b = req.json as { msgParam?: string } | undefined;
  if (!b || typeof b.msgParam !== 'string') return null;
  return JSON.parse(b.msgParam) as Record<string, unknown>;
}

/** The visible text of a delivering request (session webhook or Open API), else null. */
export function sentText(req: RecordedRequest): string | null {
  const b = req.json as { msgtype?: string; markdown?: { text?: string }; text?: { content?: string } } | undefined;
  if (b?.msgtype === 'markdown') return b.markdown?.text ?? null;
  if (b?.msgtype === 'text') return b.text?.content ?? null;
  const p = msgParamOf(req);
  if (!p) return null;
  return typeof p.text === 'string' ? p.text : typeof p.content === 'string' ? p.content : null;
}

/** True when a delivering request is markdown. */
export function isMarkdown(req: RecordedRequest): boolean {
  const b = req.json as { msgtype?: string; msgKey?: string } | undefined;
  return b?.msgtype === 'markdown' || b?.msgKey === 'sampleMarkdown';
}

/** Send paths: session webhook and both Open API robot sends. */
export const SEND_PATH = /^\/(robot\/sendBySession|v1\.0\/robot\/(oToMessages\/batchSend|groupMessages\/send))$/;

/** Install the routes; returns the token state. */
export function installDingtalk(fake: FakePlatform): DingtalkState {
  let n = 0;
  const state: DingtalkState = {
    token: 'dt-kit-token-1',
    tokenCalls: 0,
    rotate() {
      state.token = `dt-kit-token-${++n + 1}`;
    },
  };
  const authed = (r: RecordedRequest, ok: () => FakeReply): FakeReply =>
    r.headers['x-acs-dingtalk-access-token'] === state.token || r.query.access_token === state.token
      ? ok()
      : { status: 401, json: { code: 'InvalidAuthentication', requestid: 'req-kit', message: '不合法的access_token' } };
  fake.route('POST', '/v1.0/oauth2/accessToken', (r) => {
    const b = r.json as { appKey?: string; appSecret?: string } | undefined;
    if (b?.appKey !== APP_KEY || b.appSecret !== SECRETS.app_secret)
      return { status: 400, json: { code: 'invalidClientIdOrSecret', message: '无效的clientId或者clientSecret' } };
    state.tokenCalls++;
    return { json: { accessToken: state.token, expireIn: 7200 } };
  });
  const send = (r: RecordedRequest): FakeReply =>
    authed(r, () => {
      const b = r.json as { robotCode?: string; msgKey?: string; msgParam?: string } | undefined;
      if (b?.robotCode !== SECRETS.robot_code || typeof b.msgKey !== 'string' || typeof b.msgParam !== 'string') {
        return { status: 400, json: { code: 'InvalidParameter', message: 'robotCode/msgKey/msgParam' } };
      }
      return { json: { processQueryKey: `pqk_kit_${++n}`, invalidStaffIdList: [], flowControlledStaffIdList: [] } };
    });
  fake.route('POST', '/v1.0/robot/oToMessages/batchSend', send);
  fake.route('POST', '/v1.0/robot/groupMessages/send', send);
  fake.route('POST', '/robot/sendBySession', { json: { errcode: 0, errmsg: 'ok' } });
  fake.route('POST', '/media/upload', (r) =>
    authed(r, () =>
      r.parts.some((p) => p.name === 'media' && p.filename)
        ? { json: { errcode: 0, errmsg: 'ok', type: r.query.type, media_id: `@lADkit${++n}`, created_at: 1767225600000 } }
        : { json: { errcode: 40004, errmsg: '不合法的媒体文件类型' } },
    ),
  );
  return state;
}

const served = new WeakMap<FakePlatform, Set<string>>();

/** Serve `data` for download code `code` (messageFiles/download → a URL on the fake). */
export function serveDownload(fake: FakePlatform, code: string, file: { filename: string; data: Buffer; mime_type: string }): void {
  let codes = served.get(fake);
  if (!codes) {
    const known = new Set<string>();
    codes = known;
    served.set(fake, known);
    fake.route('POST', '/v1.0/robot/messageFiles/download', (r) => {
      const b = r.json as { downloadCode?: string; robotCode?: string } | undefined;
      if (!b?.downloadCode || !known.has(b.downloadCode) || b.robotCode !== SECRETS.robot_code) {
        return { status: 400, json: { code: 'InvalidParameter.downloadCode', message: 'downloadCode 无效' } };
      }
      return { json: { downloadUrl: `${fake.baseUrl}/dl/${encodeURIComponent(b.downloadCode)}` } };
    });
  }
  codes.add(code);
  fake.route('GET', `/dl/${code}`, {
    headers: { 'content-type': file.mime_type, 'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.filename)}` },
    body: file.data,
  });
}
