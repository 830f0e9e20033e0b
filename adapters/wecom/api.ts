/**
 * The WeCom server API as this adapter uses it (developer.work.weixin.qq.com): `gettoken`
 * (/document/path/91039), `message/send` (/90236), `media/upload` (/90253), `media/get` (/90254),
 * `user/get` (/90196). Every call carries `access_token`, which is cached until shortly before
 * its `expires_in` (injectable clock), fetched once for concurrent callers, and refreshed once
 * when an answer says it is invalid or expired (40001 / 40014 / 42001). Answers are HTTP 200
 * with `errcode`; a non-zero `errcode` becomes a {@link WecomApiError}.
 */
import { dispositionFilename, sendPhaseOfError, sendPhaseOfStatus } from '../../src/channel/index.ts';
import { randomBytes } from 'node:crypto';
import { ERR, isRetryableCode, isTokenError, type ApiAnswer } from './wire.ts';

/** Refresh a token this long before it expires, ms. */
const TOKEN_MARGIN_MS = 5 * 60_000;

/** Default wait advised on a rate limit when the answer gives no hint, ms (WeCom gives none). */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 1000;

/** One failed API call: the platform's code and message, and whether a retry can help. */
export class WecomApiError extends Error {
  constructor(
    message: string,
    readonly code: number | null,
    readonly retryable: boolean,
    readonly retryAfterMs: number | null = null,
    /** The request may have reached WeCom (no answer after write, or a 5xx): src/channel/send-outcome.ts. */
    readonly unknown = false,
  ) {
    super(message);
    this.name = 'WecomApiError';
  }
}

/** Settings of one client. */
export interface WecomApiOptions {
  corpId: string;
  secret: string;
  /** Base URL without a trailing slash (`WECOM_API_ROOT`). */
  apiRoot: string;
  /** ms since the epoch. */
  now: () => number;
  /** Per-request time limit, ms (default 15 000). */
  timeoutMs?: number;
}

/** Bytes and names of a downloaded media file. */
export interface MediaDownload {
  data: Buffer;
  filename: string | null;
  mimeType: string | null;
}

/** A multipart file to upload. */
export interface UploadFile {
  filename: string;
  data: Buffer;
  mimeType?: string | null;
}

function retryAfterOf(h: Headers): number | null {
  const v = h.get('retry-after');
  if (v === null || !/^\d+$/.test(v.trim())) return null;
  return Number(v.trim()) * 1000;
}

/** The API failure of an answer (HTTP status already 2xx), or null when `errcode` is 0/absent. */
function answerError(a: ApiAnswer, headers: Headers, what: string): WecomApiError | null {
  const code = typeof a.errcode === 'number' ? a.errcode : 0;
  if (code === 0) return null;
  const retryable = isRetryableCode(code);
  const wait = code === ERR.freqLimit || code === ERR.concurrencyLimit ? (retryAfterOf(headers) ?? DEFAULT_RATE_LIMIT_WAIT_MS) : null;
  return new WecomApiError(`${what}: errcode ${code} ${a.errmsg ?? ''}`.trim(), code, retryable, wait);
}

/**
 * A multipart/form-data body with one file part `media` (RFC 7578). The file name is written
 * both as raw UTF-8 in `filename="…"` (what WeCom shows) and as RFC 5987 `filename*`, so a
 * Chinese name survives either reading.
 */
export function multipartBody(file: UploadFile, boundary: string): Buffer {
  const quoted = file.filename.replace(/[\r\n]+/g, ' ').replace(/["\\]/g, (c) => `\\${c}`);
  const star = encodeURIComponent(file.filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const head =
    `--${boundary}\r\n` +
    `Content-Disposition: form-data; name="media"; filename="${quoted}"; filename*=UTF-8''${star}; filelength=${file.data.length}\r\n` +
    `Content-Type: ${file.mimeType || 'application/octet-stream'}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'utf8'), file.data, Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8')]);
}

/** The API client of one app (one account). */
export class WecomApi {
  readonly #o: WecomApiOptions;
  #token: { value: string; expiresAt: number } | null = null;
  #pending: Promise<string> | null = null;

  constructor(o: WecomApiOptions) {
    this.#o = o;
  }

  /** A valid access token (cached; one fetch for concurrent callers). @throws WecomApiError */
  async token(): Promise<string> {
    const t = this.#token;
    if (t && this.#o.now() < t.expiresAt) return t.value;
    this.#pending ??= this.#fetchToken().finally(() => (this.#pending = null));
    return this.#pending;
  }

  /** Forget the cached token (after the API called it invalid). */
  invalidate(stale?: string): void {
    if (!stale || this.#token?.value === stale) this.#token = null;
  }

  async #fetchToken(): Promise<string> {
    const q = new URLSearchParams({ corpid: this.#o.corpId, corpsecret: this.#o.secret });
    const { answer, headers } = await this.#http('GET', `/cgi-bin/gettoken?${q}`, undefined, 'gettoken');
    const err = answerError(answer, headers, 'gettoken');
    if (err) throw err;
    if (typeof answer.access_token !== 'string' || answer.access_token === '')
      throw new WecomApiError('gettoken: no access_token in the answer', null, true);
    const ttlS = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : 7200;
    const value = answer.access_token;
    this.#token = { value, expiresAt: this.#o.now() + Math.max(ttlS * 1000 - TOKEN_MARGIN_MS, (ttlS * 1000) / 2) };
    return value;
  }

  async #http(
    method: string,
    pathAndQuery: string,
    body: { data: Buffer; type: string } | undefined,
    what: string,
  ): Promise<{ answer: ApiAnswer; headers: Headers }> {
    let res: Response;
    try {
      res = await fetch(`${this.#o.apiRoot}${pathAndQuery}`, {
        method,
        headers: body ? { 'content-type': body.type } : undefined,
        body: body?.data,
        signal: AbortSignal.timeout(this.#o.timeoutMs ?? 15_000),
      });
    } catch (err) {
      throw new WecomApiError(`${what}: network error: ${(err as Error).message}`, null, true, null, sendPhaseOfError(err) === 'unknown');
    }
    const text = await res.text().catch(() => '');
    if (res.status === 429 || res.status >= 500) {
      throw new WecomApiError(
        `${what}: HTTP ${res.status} ${text.slice(0, 200)}`.trim(),
        res.status,
        true,
        retryAfterOf(res.headers) ?? (res.status === 429 ? DEFAULT_RATE_LIMIT_WAIT_MS : null),
        sendPhaseOfStatus(res.status) === 'unknown',
      );
    }
    let answer: ApiAnswer;
    try {
      answer = JSON.parse(text) as ApiAnswer;
    } catch {
      throw new WecomApiError(`${what}: HTTP ${res.status}, not JSON`, res.status, false);
    }
    if (!answer || typeof answer !== 'object') throw new WecomApiError(`${what}: HTTP ${res.status}, not a JSON object`, res.status, false);
    if (res.status >= 400 && (answer.errcode ?? 0) === 0) throw new WecomApiError(`${what}: HTTP ${res.status}`, res.status, false);
    return { answer, headers: res.headers };
  }

  /** Run `call(token)`; refresh the token once when the answer says it is invalid. */
  async #withToken<T>(call: (token: string) => Promise<T>): Promise<T> {
    const token = await this.token();
    try {
      return await call(token);
    } catch (err) {
      if (!(err instanceof WecomApiError) || err.code === null || !isTokenError(err.code)) throw err;
      this.invalidate(token);
      return call(await this.token());
    }
  }

  /** POST JSON to `path` (`/cgi-bin/message/send`). @returns the answer. @throws WecomApiError */
  postJson(path: string, payload: unknown): Promise<ApiAnswer> {
    return this.#withToken(async (token) => {
      const data = Buffer.from(JSON.stringify(payload), 'utf8');
      const { answer, headers } = await this.#http(
        'POST',
        `${path}?access_token=${encodeURIComponent(token)}`,
        { data, type: 'application/json' },
        path,
      );
      const err = answerError(answer, headers, path);
      if (err) throw err;
      return answer;
    });
  }

  /** Upload temporary media (`type` image|voice|video|file) → media_id. @throws WecomApiError */
  uploadMedia(type: 'image' | 'voice' | 'video' | 'file', file: UploadFile): Promise<string> {
    return this.#withToken(async (token) => {
      const boundary = `----skillgate${randomBytes(12).toString('hex')}`;
      const q = new URLSearchParams({ access_token: token, type });
      const { answer, headers } = await this.#http(
        'POST',
        `/cgi-bin/media/upload?${q}`,
        { data: multipartBody(file, boundary), type: `multipart/form-data; boundary=${boundary}` },
        'media/upload',
      );
      const err = answerError(answer, headers, 'media/upload');
      if (err) throw err;
      if (typeof answer.media_id !== 'string' || answer.media_id === '') throw new WecomApiError('media/upload: no media_id', null, false);
      return answer.media_id;
    });
  }

  /** Download temporary media by id (file name from Content-Disposition). @throws WecomApiError */
  getMedia(mediaId: string): Promise<MediaDownload> {
    return this.#withToken(async (token) => {
      const q = new URLSearchParams({ access_token: token, media_id: mediaId });
      let res: Response;
      try {
        res = await fetch(`${this.#o.apiRoot}/cgi-bin/media/get?${q}`, { signal: AbortSignal.timeout(this.#o.timeoutMs ?? 60_000) });
      } catch (err) {
        throw new WecomApiError(`media/get: network error: ${(err as Error).message}`, null, true);
      }
      const data = Buffer.from(await res.arrayBuffer());
      const type = res.headers.get('content-type');
      if (res.status >= 400) throw new WecomApiError(`media/get: HTTP ${res.status}`, res.status, res.status >= 500 || res.status === 429);
      // Errors come back as JSON (or text/plain JSON) instead of the file.
      const disposition = res.headers.get('content-disposition');
      if (!disposition && (type ?? '').match(/json|text\/plain/)) {
        let a: ApiAnswer | null = null;
        try {
          a = JSON.parse(data.toString('utf8')) as ApiAnswer;
        } catch {
          /* not an error answer */
        }
        const err = a ? answerError(a, res.headers, 'media/get') : null;
        if (err) throw err;
      }
      return { data, filename: dispositionFilename(disposition), mimeType: type };
    });
  }

  /** A member's name by UserID (`user/get`), or null when it cannot be read. Never throws. */
  async userName(userId: string): Promise<string | null> {
    try {
      const a = await this.#withToken(async (token) => {
        const q = new URLSearchParams({ access_token: token, userid: userId });
        const { answer, headers } = await this.#http('GET', `/cgi-bin/user/get?${q}`, undefined, 'user/get');
        const err = answerError(answer, headers, 'user/get');
        if (err) throw err;
        return answer;
      });
      return typeof a.name === 'string' && a.name !== '' ? a.name : null;
    } catch {
      return null;
    }
  }
}
