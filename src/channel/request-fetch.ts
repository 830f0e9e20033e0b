/**
 * A `fetch` for SDKs that take one (grammY's `client.fetch`), made directly on Node's `http` /
 * `https` with keep-alive connections: the same request for about half the CPU of node-fetch
 * or the WHATWG fetch (docs/performance.md "Side-by-side"). (Not on the npm undici: importing
 * it installs its dispatcher as the process-wide one, which the SDKs bundling their own undici
 * then use.) The answer offers what those SDKs read: `ok`, `status`, `statusText`,
 * `headers.get`, `json()`, `text()`, `arrayBuffer()`. Network errors are Node's (ECONNREFUSED,
 * ECONNRESET, "socket hang up": sorted by src/channel/send-outcome.ts); an abort of
 * `init.signal` rejects with an `AbortError`; `json()` of an answer that is not JSON rejects
 * with a `SyntaxError` carrying the answer's `status`.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';

/** The part of a fetch `init` this function reads. */
export interface RequestFetchInit {
  method?: string;
  headers?: Record<string, string> | Iterable<[string, string]>;
  /** A string, bytes or a Node stream (a multipart upload). */
  body?: string | Uint8Array | Readable | null;
  signal?: { aborted: boolean; addEventListener(type: 'abort', f: () => void): void; removeEventListener?(type: 'abort', f: () => void): void } | null;
  /** The agent to use (grammY passes a keep-alive one per API root); default: a shared keep-alive agent. */
  agent?: http.Agent;
}

/** What a caller may read of the answer (a subset of the WHATWG `Response`). */
export interface RequestFetchResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  json(): Promise<unknown>;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

function headersOf(h: RequestFetchInit['headers']): Record<string, string> {
  if (!h) return {};
  if (Symbol.iterator in h) return Object.fromEntries(h as Iterable<[string, string]>);
  return { ...(h as Record<string, string>) };
}

function abortError(): Error {
  return Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}

/** The whole body of `res`, once. */
function bytesOf(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    res.on('error', reject);
    res.on('aborted', () => reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })));
  });
}

/**
 * Send one HTTP(S) request. `url` is absolute; `init.method` defaults to GET.
 * @returns the answer, whatever its status (like fetch; 4xx/5xx do not reject)
 * @throws Node's network errors; an `AbortError` when `init.signal` aborts first
 */
export function requestFetch(url: string | URL, init: RequestFetchInit = {}): Promise<RequestFetchResponse> {
  const u = typeof url === 'string' ? new URL(url) : url;
  const secure = u.protocol === 'https:';
  if (!secure && u.protocol !== 'http:') return Promise.reject(new TypeError(`requestFetch: unsupported URL scheme ${u.protocol}`));
  const headers = headersOf(init.headers);
  const body = init.body ?? undefined;
  if ((typeof body === 'string' || body instanceof Uint8Array) && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length')) {
    headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  }
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortError());
  return new Promise((resolve, reject) => {
    const options = { method: (init.method ?? 'GET').toUpperCase(), headers, agent: init.agent ?? (secure ? agents.https : agents.http) };
    const req = (secure ? https : http).request(u, options, (res) => {
      const status = res.statusCode ?? 0;
      let bytes: Promise<Buffer> | undefined;
      const read = (): Promise<Buffer> => (bytes ??= bytesOf(res));
      resolve({
        ok: status >= 200 && status <= 299,
        status,
        statusText: res.statusMessage ?? '',
        headers: {
          get(name: string): string | null {
            const v = res.headers[name.toLowerCase()];
            return v === undefined ? null : Array.isArray(v) ? v.join(', ') : String(v);
          },
        },
        json: async () => {
          const text = (await read()).toString('utf8');
          try {
            return JSON.parse(text) as unknown;
          } catch (cause) {
            // The status stays with the error: a 5xx page from a proxy is an unknown outcome (src/channel/send-outcome.ts).
            throw Object.assign(new SyntaxError(`HTTP ${status}: the answer is not JSON`), { status, cause });
          }
        },
        text: async () => (await read()).toString('utf8'),
        arrayBuffer: async () => {
          const b = await read();
          return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
        },
      });
    });
    const onAbort = (): void => void req.destroy(abortError());
    signal?.addEventListener('abort', onAbort);
    req.on('close', () => signal?.removeEventListener?.('abort', onAbort));
    req.on('error', reject);
    if (body === undefined) req.end();
    else if (typeof body === 'string' || body instanceof Uint8Array) req.end(body);
    else {
      body.on('error', (err) => req.destroy(err));
      body.pipe(req);
    }
  });
}
