/**
 * The test tool server (test/fixtures/mcp/tool-server.ts) over streamable HTTP on loopback,
 * one SDK session per client; `crash` destroys every connection and stops listening.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { buildToolServer } from '../fixtures/mcp/tool-server.ts';

export interface HttpToolServer {
  url: string;
  events: string[];
  close(): Promise<void>;
}

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/** Start the server on 127.0.0.1 (a free port). */
export async function startHttpToolServer(): Promise<HttpToolServer> {
  const events: string[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const sockets = new Set<Socket>();
  let http!: HttpServer;
  const crash = (): void => {
    http.close();
    for (const s of sockets) s.destroy();
  };
  http = createServer((req, res) => {
    void (async () => {
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
      const parsed = req.method === 'POST' ? await body(req) : undefined;
      if (!transport) {
        const t = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          onsessioninitialized: (id) => void sessions.set(id, t),
        });
        await buildToolServer({ events: (l) => void events.push(l), onCrash: crash }).connect(t);
        transport = t;
      }
      await transport.handleRequest(req, res, parsed);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  http.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    events,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/** The same tool server over the older HTTP+SSE transport (`GET /sse`, `POST /messages`). */
export async function startSseToolServer(): Promise<HttpToolServer> {
  const { SSEServerTransport } = await import('@modelcontextprotocol/sdk/server/sse.js');
  const events: string[] = [];
  const sessions = new Map<string, InstanceType<typeof SSEServerTransport>>();
  const sockets = new Set<Socket>();
  let http!: HttpServer;
  const crash = (): void => {
    http.close();
    for (const s of sockets) s.destroy();
  };
  http = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method === 'GET' && url.pathname === '/sse') {
        const t = new SSEServerTransport('/messages', res);
        sessions.set(t.sessionId, t);
        await buildToolServer({ events: (l) => void events.push(l), onCrash: crash }).connect(t);
        return;
      }
      const t = sessions.get(url.searchParams.get('sessionId') ?? '');
      if (req.method === 'POST' && url.pathname === '/messages' && t) return void (await t.handlePostMessage(req, res));
      res.writeHead(404).end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  http.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    events,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
