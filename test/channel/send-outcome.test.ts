/**
 * src/channel/send-outcome.ts against real sockets: what each HTTP client the adapters use
 * (Node's fetch, undici's request under discord.js REST, grammY's client on requestFetch) throws when the
 * connection is refused (never written: `not_sent`), when the server reads the request and
 * resets the connection, or when no answer comes before a timeout (`unknown`).
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { Api, type ApiClientOptions } from 'grammy';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestFetch } from '../../src/channel/request-fetch.ts';
import { resendMarker, sendPhaseOfError, sendPhaseOfStatus } from '../../src/channel/send-outcome.ts';

/** Rejection of `p` (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('send outcome of a network failure', () => {
  let server: Server;
  let base = '';
  let refused = '';
  /** Sockets held open by /hang (released at the end). */
  const hanging = new Set<import('node:net').Socket>();
  beforeAll(async () => {
    server = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url?.includes('reset'))
          req.socket.destroy(); // the whole request read, then no answer
        else if (req.url?.includes('hang')) hanging.add(req.socket);
        else res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const probe = createNetServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    refused = `http://127.0.0.1:${(probe.address() as { port: number }).port}`;
    await new Promise<void>((r) => probe.close(() => r()));
  });
  afterAll(async () => {
    for (const s of hanging) s.destroy();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('fetch: refused → not_sent; reset after write → unknown; timeout waiting for the answer → unknown', async () => {
    const post = (url: string, signal?: AbortSignal) => fetch(url, { method: 'POST', body: '{"text":"hi"}', signal });
    expect(sendPhaseOfError(await rejection(post(`${refused}/x`)))).toBe('not_sent');
    expect(sendPhaseOfError(await rejection(post(`${base}/reset`)))).toBe('unknown');
    expect(sendPhaseOfError(await rejection(post(`${base}/hang`, AbortSignal.timeout(300))))).toBe('unknown');
  });

  it('undici request (discord.js REST): refused → not_sent; reset → unknown; headers timeout → unknown', async () => {
    const post = (url: string, dispatcher?: Agent) => request(url, { method: 'POST', body: '{}', ...(dispatcher ? { dispatcher } : {}) });
    expect(sendPhaseOfError(await rejection(post(`${refused}/x`)))).toBe('not_sent');
    expect(sendPhaseOfError(await rejection(post(`${base}/reset`)))).toBe('unknown');
    const agent = new Agent({ headersTimeout: 300 });
    try {
      expect(sendPhaseOfError(await rejection(post(`${base}/hang`, agent)))).toBe('unknown');
    } finally {
      await agent.close().catch(() => undefined);
    }
  });

  it("grammY's client on requestFetch (Telegram): refused → not_sent; reset after write → unknown; its timeout → unknown", async () => {
    const api = (root: string, timeoutSeconds?: number) =>
      new Api('123:abc', { apiRoot: root, fetch: requestFetch as unknown as ApiClientOptions['fetch'], timeoutSeconds });
    expect(sendPhaseOfError(await rejection(api(refused).sendMessage(1, 'hi')))).toBe('not_sent');
    expect(sendPhaseOfError(await rejection(api(`${base}/reset`).sendMessage(1, 'hi')))).toBe('unknown');
    expect(sendPhaseOfError(await rejection(api(`${base}/hang`, 0.3).sendMessage(1, 'hi')))).toBe('unknown');
  });

  it('an API error or a programming error is not a network failure; 5xx is unknown, other statuses are answers', () => {
    expect(sendPhaseOfError(new TypeError('x is not a function'))).toBeNull();
    expect(sendPhaseOfError(Object.assign(new Error('Bad Request: chat not found'), { error_code: 400 }))).toBeNull();
    expect(sendPhaseOfError(Object.assign(new SyntaxError('HTTP 503: the answer is not JSON'), { status: 503 }))).toBe('unknown');
    expect(sendPhaseOfError(Object.assign(new SyntaxError('HTTP 404: the answer is not JSON'), { status: 404 }))).toBeNull();
    expect(sendPhaseOfStatus(502)).toBe('unknown');
    expect(sendPhaseOfStatus(500)).toBe('unknown');
    expect(sendPhaseOfStatus(429)).toBeNull();
    expect(sendPhaseOfStatus(400)).toBeNull();
    expect(sendPhaseOfStatus(null)).toBeNull();
  });

  it('the marker speaks the user language, zh-CN by default', () => {
    expect(resendMarker(undefined)).toBe('（可能重复）');
    expect(resendMarker('zh-CN')).toBe('（可能重复）');
    expect(resendMarker('en')).toBe('(possible duplicate) ');
  });
});
