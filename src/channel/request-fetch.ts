/**
 * A `fetch` for SDKs that take one (grammY's `client.fetch`), made on undici's `request`: the
 * same request for a fraction of the CPU of node-fetch or the WHATWG fetch (docs/performance.md
 * "Side-by-side"). The answer offers what those SDKs read: `ok`, `status`, `statusText`,
 * `headers.get`, `json()`, `text()`, `arrayBuffer()`. Errors are undici's (UND_ERR_*, sorted by
 * src/channel/send-outcome.ts); an abort of `init.signal` rejects with its reason.
 */
import { request, type Dispatcher } from 'undici';
import type { Readable } from 'node:stream';

/** The part of a fetch `init` this function reads. */
export interface RequestFetchInit {
  method?: string;
  headers?: Record<string, string> | Iterable<[string, string]>;
  /** A string, bytes or a Node stream (a multipart upload). */
  body?: string | Uint8Array | Readable | null;
  signal?: { aborted: boolean; addEventListener(type: 'abort', f: () => void): void } | null;
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

// Hop-by-hop headers undici manages itself (it refuses some of them outright).
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);

function headersOf(h: RequestFetchInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  const entries = Symbol.iterator in h ? (h as Iterable<[string, string]>) : Object.entries(h);
  for (const [k, v] of entries) if (!HOP_BY_HOP.has(k.toLowerCase())) out[k] = v;
  return out;
}

/**
 * Send one HTTP request. `url` is absolute; `init.method` defaults to GET.
 * @returns the answer, whatever its status (like fetch; 4xx/5xx do not reject)
 * @throws undici's network errors; an abort's reason
 */
export async function requestFetch(url: string | URL, init: RequestFetchInit = {}): Promise<RequestFetchResponse> {
  const res = await request(url, {
    method: (init.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod,
    headers: headersOf(init.headers),
    body: init.body ?? undefined,
    signal: init.signal ?? undefined,
  });
  const raw = res.headers;
  return {
    ok: res.statusCode >= 200 && res.statusCode <= 299,
    status: res.statusCode,
    statusText: '',
    headers: {
      get(name: string): string | null {
        const v = raw[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      },
    },
    json: () => res.body.json(),
    text: () => res.body.text(),
    arrayBuffer: () => res.body.arrayBuffer(),
  };
}
