/**
 * A fake chat platform on loopback for adapter tests "contract kit": a real `node:http`
 * server on 127.0.0.1 (port 0) that the real SDKs talk to through their base-URL options
 * (grammY `client.apiRoot`, Lark `domain`). It records every request — method, path, query,
 * headers, raw body, and the body parsed as JSON, a urlencoded form, or multipart parts with
 * their file names and bytes (busboy) — and answers from routes (per method + path pattern)
 * or from one-shot scripted replies queued in front of them ("answer the next sendMessage with
 * 429 retry_after=1").
 *
 * No platform knowledge lives here: adapters' tests install the platform's routes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';

/** One multipart part: a field (`value`) or a file (`filename`, `data`). */
export interface RecordedPart {
  name: string;
  /** The file name exactly as decoded from Content-Disposition (RFC 7578 / 5987), or null for a field. */
  filename: string | null;
  mimeType: string | null;
  /** The part's bytes (a field's bytes are its UTF-8 value). */
  data: Buffer;
  /** A field's value (null for a file part). */
  value: string | null;
}

/** One request the fake received, in arrival order. */
export interface RecordedRequest {
  /** 0-based arrival index over the fake's whole life. */
  seq: number;
  method: string;
  /** Path without the query string, percent-decoded. */
  path: string;
  query: Record<string, string>;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  rawBody: Buffer;
  /** The body parsed as JSON when the content type says JSON (or it parses as an object), else undefined. */
  json?: unknown;
  /** `application/x-www-form-urlencoded` fields and multipart fields, by name. */
  fields: Record<string, string>;
  /** Multipart parts, files included, in order. */
  parts: RecordedPart[];
  /** Path parameters of the route or script that answered (`:token` → value). */
  params: Record<string, string>;
}

/** How the fake answers one request. */
export interface FakeReply {
  /** HTTP status (default 200). */
  status?: number;
  headers?: Record<string, string>;
  /** Sent as `application/json`. */
  json?: unknown;
  /** Sent as is (text/plain unless `headers` say otherwise). */
  body?: string | Buffer;
  /** Destroy the socket without answering (a network failure seen by the client). */
  destroy?: boolean;
  /** From a script: answer this request as the routes would (lets one request through, e.g. "the 2nd send fails"). */
  pass?: boolean;
  /**
   * From a script: the whole request is read and the routes act on it (the platform posts the
   * message), then the socket is destroyed without an answer — a reset after the request was
   * written, whose outcome the client cannot know.
   */
  dropAnswer?: boolean;
}

/** Computes a reply; may be async. A throw answers 500 with the error text. */
export type FakeHandler = (req: RecordedRequest) => FakeReply | Promise<FakeReply>;

/** A path pattern: `/bot:token/sendMessage` (`:name` matches one segment, `*` the rest) or a RegExp (named groups become params). */
export type PathPattern = string | RegExp;

interface Route {
  method: string;
  match: (path: string) => Record<string, string> | null;
  handler: FakeHandler;
}

interface Scripted extends Route {
  remaining: number;
}

function compile(pattern: PathPattern): (path: string) => Record<string, string> | null {
  if (pattern instanceof RegExp) {
    return (path) => {
      const m = pattern.exec(path);
      return m ? { ...(m.groups ?? {}) } : null;
    };
  }
  const names: string[] = [];
  const source = pattern
    .split('/')
    .map((seg) => {
      if (seg === '*') {
        names.push('rest');
        return '(.*)';
      }
      return seg.replace(/:([A-Za-z_][A-Za-z0-9_]*)|[.*+?^${}()|[\]\\]/g, (m, name: string | undefined) => {
        if (name) {
          names.push(name);
          return '([^/]+)';
        }
        return `\\${m}`;
      });
    })
    .join('/');
  const re = new RegExp(`^${source}$`);
  return (path) => {
    const m = re.exec(path);
    if (!m) return null;
    const out: Record<string, string> = {};
    names.forEach((n, i) => {
      out[n] = m[i + 1] ?? '';
    });
    return out;
  };
}

function methodMatches(routeMethod: string, method: string): boolean {
  return routeMethod === '*' || routeMethod.toUpperCase() === method.toUpperCase();
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function parseMultipart(headers: Record<string, string>, raw: Buffer): Promise<RecordedPart[]> {
  return new Promise((resolve, reject) => {
    const parts: RecordedPart[] = [];
    const pending: Promise<void>[] = [];
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers, defParamCharset: 'utf8', limits: { fileSize: 64 * 1024 * 1024 } });
    } catch (err) {
      reject(err as Error);
      return;
    }
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      pending.push(
        new Promise<void>((done) => {
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            parts.push({ name, filename: info.filename ?? '', mimeType: info.mimeType ?? null, data: Buffer.concat(chunks), value: null });
            done();
          });
        }),
      );
    });
    bb.on('field', (name, value, info) => {
      parts.push({ name, filename: null, mimeType: info.mimeType ?? null, data: Buffer.from(value, 'utf8'), value });
    });
    bb.on('close', () => void Promise.all(pending).then(() => resolve(parts)));
    bb.on('error', (err) => reject(err as Error));
    bb.end(raw);
  });
}

/** A running fake platform. Create with {@link startFakePlatform}. */
export class FakePlatform {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly baseUrl: string;
  /** Every request received so far, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #routes: Route[] = [];
  readonly #scripts: Scripted[] = [];
  #seq = 0;

  /** @internal use {@link startFakePlatform}. */
  constructor(server: Server, baseUrl: string) {
    this.#server = server;
    this.baseUrl = baseUrl;
  }

  /**
   * Answer `method` (`'*'` = any) requests whose path matches `pattern` with `reply`.
   * Later routes win over earlier ones for the same request (so a test can override a default).
   */
  route(method: string, pattern: PathPattern, reply: FakeReply | FakeHandler): this {
    const handler: FakeHandler = typeof reply === 'function' ? reply : () => reply;
    this.#routes.unshift({ method, match: compile(pattern), handler });
    return this;
  }

  /**
   * Answer the next `times` matching requests with `reply` before any route (one-shot scripts are
   * consumed in the order they were queued). Example: `fake.script('POST', '/bot:t/sendMessage',
   * { status: 429, json: {...} })`.
   */
  script(method: string, pattern: PathPattern, reply: FakeReply | FakeHandler, times = 1): this {
    const handler: FakeHandler = typeof reply === 'function' ? reply : () => reply;
    this.#scripts.push({ method, match: compile(pattern), handler, remaining: times });
    return this;
  }

  /** Requests matching `method` (optional, `'*'` any) and `path` (a pattern), in arrival order. */
  calls(path?: PathPattern, method = '*'): RecordedRequest[] {
    const m = path === undefined ? () => ({}) : compile(path);
    return this.requests.filter((r) => methodMatches(method, r.method) && m(r.path) !== null);
  }

  /** Scripted replies not consumed yet. */
  pendingScripts(): number {
    return this.#scripts.reduce((n, s) => n + s.remaining, 0);
  }

  /** Forget recorded requests and unconsumed scripts (routes stay). */
  reset(): void {
    this.requests.length = 0;
    this.#scripts.length = 0;
  }

  /** Stop listening and drop open connections. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** @internal the request listener. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', this.baseUrl);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) if (!(k in query)) query[k] = v;
    let path = url.pathname;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      /* keep the raw path */
    }
    const rec: RecordedRequest = {
      seq: this.#seq++,
      method: req.method ?? 'GET',
      path,
      query,
      headers,
      rawBody: raw,
      fields: {},
      parts: [],
      params: {},
    };
    const type = (headers['content-type'] ?? '').toLowerCase();
    try {
      if (type.startsWith('multipart/form-data')) {
        rec.parts = await parseMultipart(headers, raw);
        for (const p of rec.parts) if (p.value !== null) rec.fields[p.name] = p.value;
      } else if (type.startsWith('application/x-www-form-urlencoded')) {
        for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) rec.fields[k] = v;
      } else if (raw.length > 0) {
        const parsed: unknown = JSON.parse(raw.toString('utf8'));
        if (type.includes('json') || (parsed !== null && typeof parsed === 'object')) rec.json = parsed;
      }
    } catch {
      /* unparsed bodies are still recorded raw */
    }
    this.requests.push(rec);

    const routeHandler = (): FakeHandler | undefined => {
      for (const r of this.#routes) {
        const params = methodMatches(r.method, rec.method) ? r.match(path) : null;
        if (params) {
          rec.params = params;
          return r.handler;
        }
      }
      return undefined;
    };
    const answer = async (handler: FakeHandler | undefined): Promise<FakeReply> => {
      try {
        return handler ? await handler(rec) : { status: 404, json: { ok: false, error: `no fake route for ${rec.method} ${path}` } };
      } catch (err) {
        return { status: 500, body: `fake handler failed: ${(err as Error).message}` };
      }
    };
    let reply: FakeReply;
    const si = this.#scripts.findIndex((s) => methodMatches(s.method, rec.method) && s.match(path) !== null);
    if (si >= 0) {
      const s = this.#scripts[si]!;
      rec.params = s.match(path) ?? {};
      if (--s.remaining <= 0) this.#scripts.splice(si, 1);
      reply = await answer(s.handler);
      if (reply.pass || reply.dropAnswer) reply = { ...(await answer(routeHandler())), ...(reply.dropAnswer ? { destroy: true } : {}) };
    } else reply = await answer(routeHandler());
    if (reply.destroy) {
      req.socket.destroy();
      return;
    }
    const outHeaders: Record<string, string> = { ...(reply.headers ?? {}) };
    let body: Buffer;
    if (reply.json !== undefined) {
      body = Buffer.from(JSON.stringify(reply.json), 'utf8');
      outHeaders['content-type'] ??= 'application/json';
    } else if (reply.body !== undefined) {
      body = Buffer.isBuffer(reply.body) ? reply.body : Buffer.from(reply.body, 'utf8');
      outHeaders['content-type'] ??= 'text/plain; charset=utf-8';
    } else body = Buffer.alloc(0);
    outHeaders['content-length'] = String(body.length);
    res.writeHead(reply.status ?? 200, outHeaders);
    res.end(body);
  }
}

/** Start a fake platform on 127.0.0.1 (a free port). Close it with {@link FakePlatform.close}. */
export async function startFakePlatform(): Promise<FakePlatform> {
  let fake: FakePlatform | undefined;
  const server = createServer((req, res) => {
    fake!.handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  fake = new FakePlatform(server, `http://127.0.0.1:${port}`);
  return fake;
}
