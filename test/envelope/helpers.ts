/**
 * Test helpers for the envelope tests: a loopback HTTP server that serves a PNG, an HTML
 * page, JSON, large bodies, redirects and Content-Disposition names, and records every
 * request; temporary workspaces; a capturing logger.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log/logger.ts';

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** One request the server saw. */
export interface SeenRequest {
  method: string;
  path: string;
  range?: string;
  host?: string;
}

/** A running loopback server. */
export interface TestServer {
  port: number;
  /** `http://127.0.0.1:<port>` */
  base: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** Start the fixture server on 127.0.0.1 (random port). */
export async function startServer(): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push({
      method: req.method ?? '',
      path: url.pathname + url.search,
      range: req.headers.range,
      host: req.headers.host,
    });
    const p = url.pathname;
    if (p === '/other/img.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from('a different png'));
    } else if (p.endsWith('.png') && !p.startsWith('/head405')) {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
      res.end(PNG);
    } else if (p.startsWith('/head405')) {
      if (req.method === 'HEAD') {
        res.writeHead(405);
        res.end();
        return;
      }
      const body = req.headers.range === 'bytes=0-0' ? PNG.subarray(0, 1) : PNG;
      res.writeHead(req.headers.range ? 206 : 200, { 'content-type': 'image/png', 'content-length': body.length });
      res.end(body);
    } else if (p.startsWith('/page')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body>hello</body></html>');
    } else if (p === '/data.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"a":1}');
    } else if (p === '/problem') {
      res.writeHead(200, { 'content-type': 'application/problem+json' });
      res.end('{"title":"x"}');
    } else if (p === '/big.bin') {
      // 64 KiB, chunked (no Content-Length): the limit must be enforced while streaming
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(4096, 7);
      let sent = 0;
      const pump = (): void => {
        while (sent < 16) {
          sent++;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('error', () => undefined);
      pump();
    } else if (p === '/big-declared.bin') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': 65536 });
      res.end(Buffer.alloc(65536, 1));
    } else if (p === '/cd') {
      const body = Buffer.from('%PDF-1.4 fake');
      res.writeHead(200, {
        'content-type': 'application/pdf',
        'content-length': body.length,
        'content-disposition': `attachment; filename="report.pdf"; filename*=UTF-8''${encodeURIComponent('季度报告 2026.pdf')}`,
      });
      res.end(body);
    } else if (p === '/' && url.searchParams.has('id')) {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
      res.end(PNG);
    } else if (p === '/redirect-private') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    } else if (p === '/redirect-ok') {
      res.writeHead(302, { location: '/img.png' });
      res.end();
    } else if (p === '/loop') {
      res.writeHead(302, { location: '/loop' });
      res.end();
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    base: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A fresh temporary directory; remove with {@link removeDir}. */
export function tempDir(prefix = 'sg-env-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

/** Remove a temporary directory. */
export function removeDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}

/** A logger writing JSON lines into memory. */
export function captureLogger(): { log: Logger; lines: () => Array<Record<string, unknown>> } {
  let out = '';
  const stream = new Writable({
    write(chunk, _enc, cb) {
      out += chunk.toString();
      cb();
    },
  });
  const log = createLogger({ destination: stream, level: 'debug', pretty: false });
  return {
    log,
    lines: () =>
      out
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
