/**
 * Pinned HTTP(S) requests with manually followed, re-checked redirects
 * (SSRF guard: net-guard.ts). The socket connects to the address the guard checked — the host
 * name is never resolved again — so DNS rebinding cannot switch the target; TLS still
 * verifies the certificate against the URL's host name.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { MessageKey } from './messages.ts';
import { guardUrl, type FetchPolicy, type PinnedAddress, type Resolver } from './net-guard.ts';

/** A refused or failed fetch, with the message key and values of its user-visible note. */
export class FetchError extends Error {
  constructor(
    readonly key: MessageKey,
    readonly vars: Record<string, string | number> = {},
    detail?: string,
  ) {
    super(detail ?? key);
    this.name = 'FetchError';
  }
}

/** Request options of a {@link Transport}. */
export interface TransportInit {
  method: 'GET' | 'HEAD';
  headers: Record<string, string>;
  /** Socket idle timeout in ms. */
  timeoutMs: number;
}

/**
 * Send one request to `url` over a connection pinned to `pin` and resolve with the response
 * (body not consumed). The default is {@link nodeTransport}; tests or embedders may replace it.
 */
export type Transport = (url: URL, pin: PinnedAddress, init: TransportInit) => Promise<IncomingMessage>;

/** A lookup that always answers the pinned address (both the `all` and single-address forms). */
function pinnedLookup(pin: PinnedAddress): LookupFunction {
  return ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, [{ address: pin.address, family: pin.family }]);
    else cb(null, pin.address, pin.family);
  }) as unknown as LookupFunction;
}

/** node:http / node:https transport with a pinned lookup, no keep-alive agent. */
export const nodeTransport: Transport = (url, pin, init) =>
  new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, { method: init.method, headers: init.headers, agent: false, lookup: pinnedLookup(pin) });
    req.setTimeout(init.timeoutMs, () => req.destroy(new Error(`no data for ${init.timeoutMs} ms`)));
    req.once('response', (res) => {
      // The idle timeout keeps guarding the body stream.
      res.socket?.setTimeout(init.timeoutMs, () => res.destroy(new Error(`no data for ${init.timeoutMs} ms`)));
      resolve(res);
    });
    req.once('error', reject);
    req.end();
  });

/** Options of {@link guardedRequest}. */
export interface GuardedRequestOptions {
  policy: FetchPolicy;
  method: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  timeoutMs: number;
  /** Redirects followed at most (default 5). */
  maxRedirects?: number;
  transport?: Transport;
  resolve?: Resolver;
}

const BASE_HEADERS = { 'user-agent': 'skillgate', accept: '*/*', 'accept-encoding': 'identity' };

/**
 * Request `url`, checking every hop with the guard and following 301/302/303/307/308 manually
 * (at most `maxRedirects`, default 5). @returns the final response (2xx or other non-redirect
 * status; body not consumed) and its URL.
 * @throws {@link FetchError} on a refusal, a DNS failure, a bad scheme, too many redirects or a
 * network error.
 */
export async function guardedRequest(url: URL, opts: GuardedRequestOptions): Promise<{ response: IncomingMessage; url: URL }> {
  const transport = opts.transport ?? nodeTransport;
  const maxRedirects = opts.maxRedirects ?? 5;
  let current = url;
  for (let hop = 0; ; hop++) {
    const guard = await guardUrl(current, opts.policy, opts.resolve);
    if (!guard.ok) {
      if (guard.reason === 'scheme') throw new FetchError('badScheme');
      if (guard.reason === 'dns') throw new FetchError('dns', { host: guard.host });
      throw new FetchError('refused', { host: guard.host, address: guard.address }, `refused ${guard.host} → ${guard.address}`);
    }
    let response: IncomingMessage;
    try {
      response = await transport(current, guard, {
        method: opts.method,
        headers: { ...BASE_HEADERS, ...opts.headers },
        timeoutMs: opts.timeoutMs,
      });
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      throw new FetchError('network', { detail }, detail);
    }
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if ([301, 302, 303, 307, 308].includes(status) && typeof location === 'string' && location !== '') {
      response.resume();
      response.destroy();
      if (hop >= maxRedirects) throw new FetchError('tooManyRedirects');
      try {
        current = new URL(location, current);
      } catch {
        throw new FetchError('network', { detail: `bad redirect location ${location}` });
      }
      continue;
    }
    return { response, url: current };
  }
}
