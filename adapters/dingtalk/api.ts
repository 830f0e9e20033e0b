/**
 * The DingTalk HTTP APIs the robot uses, over `fetch` (Node 20), with the access token cached.
 *
 * - New API root (`DINGTALK_API_ROOT`, default https://api.dingtalk.com):
 *   `POST /v1.0/oauth2/accessToken` `{appKey, appSecret}` → `{accessToken, expireIn}` (s), sent
 *   as header `x-acs-dingtalk-access-token`; `POST /v1.0/robot/messageFiles/download`
 *   `{downloadCode, robotCode}` → `{downloadUrl}` (https://open.dingtalk.com/document/orgapp/download-media-files);
 *   `POST /v1.0/robot/oToMessages/batchSend` and `/v1.0/robot/groupMessages/send`.
 * Errors: HTTP 4xx/5xx with `{code, message}`.
 * - Old API root (`DINGTALK_OAPI_ROOT`, default https://oapi.dingtalk.com): `POST
 *   /media/upload?access_token=…&type=image|file` (multipart field `media`) → `{errcode: 0,
 *   media_id}`. Assumption (stated, not verified on an official page): the new API's access
 *   token is accepted as `access_token` by the old API for the same internal app — both are the
 *   app's enterprise-internal token.
 * - The session webhook (`sessionWebhook` of a callback, on the old API host) answers
 *   `{errcode, errmsg}`.
 *
 * Classification ({@link ApiFailure}): rate limits (new `Forbidden.AccessDenied.Qps*`, HTTP
 * 429, old errcodes 90018/90002/130101) are retryable with `retry_after_ms` from `Retry-After`
 * when present, else 1000 ms (the throttling doc's remedy "sleep 1 s and retry"); 5xx, network
 * failures and old errcode -1 (system busy) are retryable; an expired token (HTTP 401, old
 * 40014/42001/40001) is refreshed once; anything else is permanent. By status and code, never by
 * message text.
 */
import { sendPhaseOfError, sendPhaseOfStatus } from '../../src/channel/index.ts';

/** A failed call. */
export interface ApiFailure {
  ok: false;
  retryable: boolean;
  retry_after_ms?: number | null;
  error: string;
  code?: string | number | null;
  /** HTTP status (0 = no answer). */
  status: number;
  /** The token was refused (refresh and retry once). */
  authExpired?: boolean;
  /** The request may have reached DingTalk (no answer after write, or a 5xx): src/channel/send-outcome.ts. */
  unknown?: boolean;
}

/** The outcome of one call. */
export type ApiOutcome<T> = { ok: true; value: T } | ApiFailure;

/** Settings of {@link createDingtalkApi}. */
export interface DingtalkApiOptions {
  apiRoot: string;
  oapiRoot: string;
  appKey: string;
  appSecret: string;
  /** ms since the epoch (token expiry; tests inject one). */
  now: () => number;
  /** Per-request timeout, ms (default 30 000). */
  timeoutMs?: number;
}

/** The client of one robot account. */
export interface DingtalkApi {
  /** POST JSON to a new-API path with the access token (refreshed once when refused). */
  postNew<T = Record<string, unknown>>(path: string, body: unknown): Promise<ApiOutcome<T>>;
  /** POST a message to a session webhook URL (no token). */
  postSession(url: string, body: unknown): Promise<ApiOutcome<Record<string, unknown>>>;
  /** Upload a file to the old media API; the `media_id`. */
  uploadMedia(type: 'image' | 'file', filename: string, data: Buffer, mime: string): Promise<ApiOutcome<string>>;
  /** GET bytes from a (download) URL. */
  getBytes(url: string): Promise<ApiOutcome<{ data: Buffer; mime: string | null; filename: string | null }>>;
  /** Drop the cached token. */
  invalidate(): void;
}

const RATE_CODES_OLD = new Set([90018, 90002, 130101]);
const TOKEN_CODES_OLD = new Set([40014, 42001, 40001]);
/** Refresh the token this long before DingTalk says it expires. */
const TOKEN_MARGIN_MS = 300_000;

function retryAfterMs(headers: Headers): number | null {
  const v = headers.get('retry-after');
  if (v === null) return null;
  const s = Number(v);
  if (Number.isFinite(s) && s >= 0) return Math.round(s * 1000);
  const d = Date.parse(v);
  return Number.isFinite(d) ? Math.max(0, d - Date.now()) : null;
}

async function readJson(res: Response): Promise<Record<string, unknown> | null> {
  const text = await res.text();
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Classify a new-API answer that is not 2xx. */
export function classifyNewApi(status: number, body: Record<string, unknown> | null, headers: Headers): ApiFailure {
  const code = typeof body?.code === 'string' ? body.code : null;
  const message = typeof body?.message === 'string' ? body.message : `HTTP ${status}`;
  const error = `DingTalk ${status}${code ? ` ${code}` : ''}: ${message}`;
  if (status === 429 || code?.startsWith('Forbidden.AccessDenied.Qps')) {
    return { ok: false, status, retryable: true, retry_after_ms: retryAfterMs(headers) ?? 1000, error, code: code ?? status };
  }
  if (status === 401 || code === 'InvalidAuthentication')
    return { ok: false, status, retryable: true, authExpired: true, error, code: code ?? status };
  return { ok: false, status, retryable: status >= 500, error, code: code ?? status, ...unknownStatus(status) };
}

function unknownStatus(status: number): { unknown?: true } {
  return sendPhaseOfStatus(status) === 'unknown' ? { unknown: true } : {};
}

/** Classify an old-API / session-webhook `{errcode, errmsg}` answer (null when errcode is 0). */
export function classifyOapi(status: number, body: Record<string, unknown> | null, headers: Headers): ApiFailure | null {
  if (status >= 400 || body === null) {
    const error = `DingTalk ${status}: ${body === null ? 'answer is not JSON' : String(body.errmsg ?? '')}`;
    if (status === 429) return { ok: false, status, retryable: true, retry_after_ms: retryAfterMs(headers) ?? 1000, error, code: 429 };
    return {
      ok: false,
      status,
      retryable: status >= 500 || status === 0 || (status < 400 && body === null),
      error,
      code: status,
      ...unknownStatus(status),
    };
  }
  const errcode = typeof body.errcode === 'number' ? body.errcode : Number(body.errcode ?? 0);
  if (errcode === 0) return null;
  const error = `DingTalk errcode ${errcode}: ${String(body.errmsg ?? '')}`;
  if (RATE_CODES_OLD.has(errcode))
    return { ok: false, status, retryable: true, retry_after_ms: retryAfterMs(headers) ?? 1000, error, code: errcode };
  if (TOKEN_CODES_OLD.has(errcode)) return { ok: false, status, retryable: true, authExpired: true, error, code: errcode };
  return { ok: false, status, retryable: errcode === -1, error, code: errcode };
}

function networkFailure(err: unknown): ApiFailure {
  const unknown = sendPhaseOfError(err) === 'unknown';
  return {
    ok: false,
    status: 0,
    retryable: true,
    error: `DingTalk unreachable: ${(err as Error).message}`,
    code: null,
    ...(unknown ? { unknown } : {}),
  };
}

/** Create the client. */
export function createDingtalkApi(o: DingtalkApiOptions): DingtalkApi {
  const apiRoot = o.apiRoot.replace(/\/+$/, '');
  const oapiRoot = o.oapiRoot.replace(/\/+$/, '');
  const timeout = o.timeoutMs ?? 30_000;
  let cached: { token: string; until: number } | null = null;
  let pending: Promise<ApiOutcome<string>> | null = null;

  async function fetchToken(): Promise<ApiOutcome<string>> {
    try {
      const res = await fetch(`${apiRoot}/v1.0/oauth2/accessToken`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ appKey: o.appKey, appSecret: o.appSecret }),
        signal: AbortSignal.timeout(timeout),
      });
      const body = await readJson(res);
      if (!res.ok) return { ...classifyNewApi(res.status, body, res.headers), authExpired: false };
      const token = typeof body?.accessToken === 'string' ? body.accessToken : '';
      if (token === '') return { ok: false, status: res.status, retryable: true, error: 'DingTalk accessToken answer without accessToken' };
      const expireIn = typeof body?.expireIn === 'number' ? body.expireIn : 7200;
      cached = { token, until: o.now() + expireIn * 1000 - TOKEN_MARGIN_MS };
      return { ok: true, value: token };
    } catch (err) {
      return networkFailure(err);
    }
  }

  /** The cached token, or one fetch shared by concurrent callers. */
  function token(): Promise<ApiOutcome<string>> {
    if (cached && o.now() < cached.until) return Promise.resolve({ ok: true, value: cached.token });
    pending ??= fetchToken().finally(() => {
      pending = null;
    });
    return pending;
  }

  async function withToken<T>(call: (token: string) => Promise<ApiOutcome<T>>): Promise<ApiOutcome<T>> {
    for (let attempt = 0; ; attempt++) {
      const t = await token();
      if (!t.ok) return t;
      const r = await call(t.value);
      if (r.ok || !r.authExpired || attempt > 0) return r;
      cached = null;
    }
  }

  return {
    invalidate() {
      cached = null;
    },
    postNew<T>(path: string, body: unknown) {
      return withToken<T>(async (tok) => {
        try {
          const res = await fetch(`${apiRoot}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-acs-dingtalk-access-token': tok },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(timeout),
          });
          const json = await readJson(res);
          if (!res.ok) return classifyNewApi(res.status, json, res.headers);
          return { ok: true, value: (json ?? {}) as T };
        } catch (err) {
          return networkFailure(err);
        }
      });
    },
    async postSession(url, body) {
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(timeout),
        });
        const json = await readJson(res);
        const fail = classifyOapi(res.status, json, res.headers);
        return fail ?? { ok: true, value: json ?? {} };
      } catch (err) {
        return networkFailure(err);
      }
    },
    uploadMedia(type, filename, data, mime) {
      return withToken<string>(async (tok) => {
        try {
          const form = new FormData();
          form.append('media', new Blob([data], { type: mime }), filename);
          const q = new URLSearchParams({ access_token: tok, type });
          const res = await fetch(`${oapiRoot}/media/upload?${q.toString()}`, {
            method: 'POST',
            body: form,
            signal: AbortSignal.timeout(timeout),
          });
          const json = await readJson(res);
          const fail = classifyOapi(res.status, json, res.headers);
          if (fail) return fail;
          const id = typeof json?.media_id === 'string' ? json.media_id : '';
          return id === ''
            ? { ok: false, status: res.status, retryable: false, error: 'DingTalk media/upload answer without media_id' }
            : { ok: true, value: id };
        } catch (err) {
          return networkFailure(err);
        }
      });
    },
    async getBytes(url) {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(timeout) });
        if (!res.ok) return { ok: false, status: res.status, retryable: res.status >= 500, error: `DingTalk download HTTP ${res.status}` };
        const cd = res.headers.get('content-disposition');
        return {
          ok: true,
          value: { data: Buffer.from(await res.arrayBuffer()), mime: res.headers.get('content-type'), filename: filenameOf(cd) },
        };
      } catch (err) {
        return networkFailure(err);
      }
    },
  };
}

/** The file name of a Content-Disposition header (RFC 5987 `filename*` first), or null. */
export function filenameOf(cd: string | null): string | null {
  if (!cd) return null;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(cd);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch {
      /* fall through */
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)/.exec(cd);
  const v = plain?.[1] ?? plain?.[2]?.trim();
  return v ? Buffer.from(v, 'latin1').toString('utf8') : null;
}
