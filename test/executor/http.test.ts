import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeSkill } from '../../src/executor/index.ts';
import { execOptions, loadFixture, makeCtx, tempWorkspace } from './exec-helpers.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let base = '';
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url?.startsWith('/slow')) return; // never answers
      const parsed = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      if (parsed.fail === true || req.url?.includes('fail=true')) {
        res.writeHead(503, { 'content-type': 'text/plain' });
        res.end('upstream   overloaded,\ntry later');
        return;
      }
      if (req.url?.includes('plain=1')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('just text');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ price: 101.5, echoed: parsed }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

function ctxFor(ws: string, extra: Record<string, unknown> = {}) {
  return makeCtx(ws, {
    skill_configs: { API_BASE: base, http_post: { API_TOKEN: 'tok-http-777' } },
    skill_args: { CLIENT_NAME: 'tests' },
    ...extra,
  });
}

describe('HTTP skills (R-FORM-11, A-47)', () => {
  it('R-FORM-11, A-47: POST sends the input JSON as body, no context; $NAME in url and headers substituted (R-CFG-04 order); JSON reply is the result', async () => {
    const ws = await tempWorkspace();
    seen.length = 0;
    const opts = execOptions();
    const outcome = await executeSkill(await loadFixture('http_post'), { symbol: 'AAPL' }, ctxFor(ws, { db: { live: 1 } }), opts);
    expect(outcome).toEqual({ kind: 'returned', value: { price: 101.5, echoed: { symbol: 'AAPL' } } });
    expect(seen).toHaveLength(1);
    const req = seen[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/v1/price');
    expect(JSON.parse(req.body)).toEqual({ symbol: 'AAPL' });
    expect(req.body).not.toContain('workspace_dir');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers.authorization).toBe('Bearer tok-http-777');
    expect(req.headers['x-client']).toBe('skillgate-tests');
    expect(opts.logText()).not.toContain('tok-http-777');
  });

  it('R-CFG-04: a blank value at a higher level falls through to the next level', async () => {
    const ws = await tempWorkspace();
    seen.length = 0;
    const ctx = makeCtx(ws, { skill_configs: { API_BASE: base, http_post: { API_TOKEN: '  ' } }, API_TOKEN: 'from-top-level' });
    await executeSkill(await loadFixture('http_post'), {}, ctx, execOptions());
    expect(seen[0]!.headers.authorization).toBe('Bearer from-top-level');
  });

  it('A-47: GET sends the input as a query string appended to the configured one', async () => {
    const ws = await tempWorkspace();
    seen.length = 0;
    const outcome = await executeSkill(
      await loadFixture('http_get'),
      { symbol: 'MSFT', ids: [1, 2], opts: { a: 1 } },
      ctxFor(ws),
      execOptions(),
    );
    expect(outcome.kind).toBe('returned');
    const url = new URL(seen[0]!.url, base);
    expect(seen[0]!.method).toBe('GET');
    expect(url.pathname).toBe('/v1/quote');
    expect(url.searchParams.get('src')).toBe('skill');
    expect(url.searchParams.get('symbol')).toBe('MSFT');
    expect(url.searchParams.getAll('ids')).toEqual(['1', '2']);
    expect(url.searchParams.get('opts')).toBe('{"a":1}');
    expect(seen[0]!.body).toBe('');
  });

  it('A-47: a non-2xx status is a failure carrying the status', async () => {
    const ws = await tempWorkspace();
    const outcome = await executeSkill(await loadFixture('http_post'), { fail: true }, ctxFor(ws), execOptions());
    expect(outcome).toEqual({
      kind: 'failed',
      error: 'HTTP 503: upstream overloaded, try later',
      error_type: 'transient',
      details: { status: 503 },
    });
  });

  it('A-47: a non-JSON 2xx body becomes {output: text}', async () => {
    const ws = await tempWorkspace();
    const outcome = await executeSkill(await loadFixture('http_get'), { plain: 1 }, ctxFor(ws), execOptions());
    expect(outcome).toEqual({ kind: 'returned', value: { output: 'just text' } });
  });

  it('R-WALL-01: the request times out at min(timeout_sec, wall)', async () => {
    const ws = await tempWorkspace();
    const outcome = await executeSkill(await loadFixture('http_slow'), {}, ctxFor(ws), execOptions({ wallSec: 30 }));
    expect(outcome).toMatchObject({ kind: 'failed', error: 'skill "http_slow" timed out after 1 s', error_type: 'transient' });
  });
});
