/**
 * The WeCom server API on the contract kit's loopback fake (developer.work.weixin.qq.com
 * /document/path/91039 gettoken, /90236 message/send, /90253 media/upload, /90254 media/get,
 * /90196 user/get): HTTP 200 with `errcode`, access tokens issued per `gettoken` and checked on
 * every call (an unknown or revoked one answers 40014, an expired one 42001).
 */
import type { FakePlatform, FakeReply, RecordedRequest } from '../../../adapters/contract/index.ts';

/** The fixtures' fake secrets (expected.json → secrets.wecom). */
export const WECOM = {
  token: 'TestToken123',
  aesKey: 'GZJlaWASaJHvw58BHNL4lsI1C6yxHm9GCphkwiIcuZE',
  corpId: 'wwtest0000000001',
  agentId: '1000002',
  secret: 'test_corp_secret_do_not_use',
  directory: { test_user_001: 'Test User', user_zh_002: '张三' } as Record<string, string>,
};

/** State of the fake's token issuing (tests revoke or expire tokens through it). */
export interface FakeWecomState {
  issued: string[];
  /** Tokens answered with 42001 from now on. */
  expired: Set<string>;
  /** Media the fake serves from media/get, by media_id. */
  media: Map<string, { data: Buffer; filename: string; type: string }>;
}

const err = (errcode: number, errmsg: string): FakeReply => ({ json: { errcode, errmsg } });

/** Install the API routes; returns the token state. */
export function installWecomApi(fake: FakePlatform): FakeWecomState {
  const state: FakeWecomState = { issued: [], expired: new Set(), media: new Map() };
  let uploads = 0;
  let msgs = 0;
  const tokenProblem = (req: RecordedRequest) => {
    const t = req.query.access_token ?? '';
    if (state.expired.has(t)) return err(42001, 'access_token expired');
    if (!state.issued.includes(t)) return err(40014, 'invalid access_token');
    return null;
  };
  fake.route('GET', '/cgi-bin/gettoken', (req) => {
    if (req.query.corpid !== WECOM.corpId || req.query.corpsecret !== WECOM.secret) return err(40001, 'invalid credential');
    const t = `fake_access_token_${state.issued.length + 1}`;
    state.issued.push(t);
    return { json: { errcode: 0, errmsg: 'ok', access_token: t, expires_in: 7200 } };
  });
  fake.route('POST', '/cgi-bin/message/send', (req) => {
    const p = tokenProblem(req);
    if (p) return p;
    const b = req.json as { touser?: string; msgtype?: string; agentid?: number } | undefined;
    if (!b?.touser || !b.msgtype || b.agentid === undefined) return err(40008, 'invalid message type');
    return { json: { errcode: 0, errmsg: 'ok', invaliduser: '', msgid: `fake_msgid_${++msgs}` } };
  });
  fake.route('POST', '/cgi-bin/media/upload', (req) => {
    const p = tokenProblem(req);
    if (p) return p;
    const part = req.parts.find((x) => x.name === 'media' && x.value === null);
    if (!part || part.data.length <= 5) return err(40005, 'invalid file size');
    return { json: { errcode: 0, errmsg: '', type: req.query.type, media_id: `fake_media_${++uploads}`, created_at: '1736928000' } };
  });
  fake.route('GET', '/cgi-bin/media/get', (req): FakeReply => {
    const p = tokenProblem(req);
    if (p) return p;
    const m = state.media.get(req.query.media_id ?? '');
    if (!m)
      return {
        headers: { 'content-type': 'application/json; charset=UTF-8' },
        body: JSON.stringify({ errcode: 40007, errmsg: 'invalid media_id' }),
      };
    // WeCom writes the file name as raw UTF-8 bytes inside the quotes.
    const raw = Buffer.from(m.filename, 'utf8').toString('latin1');
    return { headers: { 'content-type': m.type, 'content-disposition': `attachment; filename="${raw}"` }, body: m.data };
  });
  fake.route('GET', '/cgi-bin/user/get', (req) => {
    const p = tokenProblem(req);
    if (p) return p;
    const name = WECOM.directory[req.query.userid ?? ''];
    return name ? { json: { errcode: 0, errmsg: 'ok', userid: req.query.userid, name } } : err(60111, 'userid not found');
  });
  return state;
}
