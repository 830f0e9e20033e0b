/**
 * src/channel/request-fetch.ts against a real loopback server: what an SDK reads of the answer
 * (status, ok, headers, json/text/bytes), the request as sent (method, headers, a string, bytes or
 * a stream body), keep-alive connections, and an abort.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { requestFetch } from '../../src/channel/request-fetch.ts';

let server: Server;
let base = '';
const seen: { method?: string; url?: string; headers?: IncomingHttpHeaders; body?: string; port?: number }[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body, port: req.socket.remotePort });
      if (req.url === '/hang') return; // never answered
      if (req.url === '/proxy-error') {
        res.writeHead(502, { 'content-type': 'text/html' });
        return void res.end('<html><body>502 Bad Gateway</body></html>');
      }
      res.statusCode = req.url === '/missing' ? 404 : 200;
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-multi', ['a', 'b']);
      res.end(JSON.stringify({ ok: req.url !== '/missing', echo: body }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

it('a JSON POST: the answer as fetch gives it; the headers as given, with the body length', async () => {
  const res = await requestFetch(`${base}/botX/sendMessage`, {
    method: 'post',
    headers: { 'content-type': 'application/json', connection: 'keep-alive', 'x-trace': '7' },
    body: '{"chat_id":1,"text":"你好"}',
  });
  expect(res.ok).toBe(true);
  expect(res.status).toBe(200);
  expect(res.headers.get('Content-Type')).toBe('application/json');
  expect(res.headers.get('x-multi')).toBe('a, b');
  expect(res.headers.get('x-none')).toBeNull();
  expect(await res.json()).toEqual({ ok: true, echo: '{"chat_id":1,"text":"你好"}' });
  const req = seen.at(-1)!;
  expect(req.method).toBe('POST');
  expect(req.url).toBe('/botX/sendMessage');
  expect(req.headers?.['x-trace']).toBe('7');
  expect(req.headers?.['content-type']).toBe('application/json');
  expect(req.headers?.['content-length']).toBe(String(Buffer.byteLength('{"chat_id":1,"text":"你好"}')));
});

it('answers read in full reuse the connection', async () => {
  const before = seen.length;
  for (let i = 0; i < 5; i++) await (await requestFetch(`${base}/again`, { method: 'POST', body: String(i) })).json();
  const ports = new Set(seen.slice(before).map((r) => r.port));
  expect(seen.length - before).toBe(5);
  expect(ports.size).toBe(1);
});

it('a 404 is an answer (not a rejection); a stream body arrives whole; text() reads it', async () => {
  const missing = await requestFetch(new URL(`${base}/missing`));
  expect(missing.ok).toBe(false);
  expect(missing.status).toBe(404);
  expect(seen.at(-1)!.method).toBe('GET');
  await missing.text();
  const parts = ['--b\r\n', 'part one\r\n', '--b--\r\n'];
  const res = await requestFetch(`${base}/upload`, { method: 'POST', body: Readable.from(parts, { objectMode: false }) });
  expect(JSON.parse(await res.text())).toEqual({ ok: true, echo: parts.join('') });
  const bytes = await (await requestFetch(`${base}/x`, { method: 'POST', body: new TextEncoder().encode('abc') })).arrayBuffer();
  expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual({ ok: true, echo: 'abc' });
});

it('json() of an answer that is not JSON rejects with its status', async () => {
  const res = await requestFetch(`${base}/proxy-error`, { method: 'POST', body: '{}' });
  expect(res.status).toBe(502);
  await expect(res.json()).rejects.toMatchObject({ name: 'SyntaxError', status: 502 });
});

it('an abort of the signal rejects the pending request', async () => {
  const controller = new AbortController();
  const pending = requestFetch(`${base}/hang`, { method: 'POST', body: 'x', signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  expect(controller.signal.aborted).toBe(true);
  const early = new AbortController();
  early.abort();
  await expect(requestFetch(`${base}/x`, { signal: early.signal })).rejects.toMatchObject({ name: 'AbortError' });
});
