/**
 * A scripted OpenAI-compatible chat-completions server on 127.0.0.1: it
 * answers each `POST /v1/chat/completions` with the next step of a script. A step may check
 * the request (throwing fails it); a request with no step left, on another path, or failing
 * its check is recorded in `errors` and answered 500 — `assertDone()` fails the test then, and
 * when steps were left unused.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request body as received (OpenAI wire form). */
export interface ReceivedRequest {
  model: string;
  messages: Array<{
    role: string;
    content: string | null;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: string; function: { name: string; description: string; parameters: Record<string, unknown> } }>;
  tool_choice?: string;
  [k: string]: unknown;
}

/** One scripted exchange. */
export interface Step {
  /** Throw (e.g. a failed `expect`) when the request is not the one expected. */
  check?: (req: ReceivedRequest, headers: Record<string, string | string[] | undefined>) => void;
  /** The answer: an OpenAI response body, or a raw status/body/headers. */
  reply: Reply | ((req: ReceivedRequest) => Reply);
}

type Reply = Record<string, unknown> | { status: number; body?: unknown; headers?: Record<string, string> };

let callSeq = 0;

/** A response whose first choice is a plain text answer. */
export function say(content: string): Record<string, unknown> {
  return { id: 'cmpl', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] };
}

/** A response whose first choice calls tools (`[name, args]` pairs). */
export function callTools(...calls: [string, Record<string, unknown>][]): Record<string, unknown> {
  return {
    id: 'cmpl',
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: calls.map(([name, args]) => ({
            id: `call_${++callSeq}`,
            type: 'function',
            function: { name, arguments: JSON.stringify(args) },
          })),
        },
        finish_reason: 'tool_calls',
      },
    ],
  };
}

/** The tool messages of a request (role `tool`), as parsed JSON. */
export function toolResults(req: ReceivedRequest): Record<string, unknown>[] {
  return req.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content ?? 'null') as Record<string, unknown>);
}

/** The last tool message of a request, parsed. */
export function lastToolResult(req: ReceivedRequest): Record<string, unknown> {
  const all = toolResults(req);
  if (all.length === 0) throw new Error('the request carries no tool result');
  return all[all.length - 1]!;
}

/** The scripted server. */
export class FakeLlm {
  readonly received: ReceivedRequest[] = [];
  readonly headers: Record<string, string | string[] | undefined>[] = [];
  readonly errors: string[] = [];
  private steps: Step[] = [];
  private server: Server | undefined;
  baseUrl = '';

  /** Start listening on 127.0.0.1, a free port. */
  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const fail = (msg: string): void => {
          this.errors.push(msg);
          res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: msg } }));
        };
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return fail(`unexpected ${req.method} ${req.url}`);
        let body: ReceivedRequest;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedRequest;
        } catch {
          return fail('request body is not JSON');
        }
        this.received.push(body);
        this.headers.push(req.headers);
        const step = this.steps.shift();
        if (!step)
          return fail(
            `unexpected request #${this.received.length}: no scripted step left (last message: ${JSON.stringify(body.messages.at(-1)).slice(0, 300)})`,
          );
        try {
          step.check?.(body, req.headers);
        } catch (e) {
          return fail(`request #${this.received.length} failed its check: ${(e as Error).message}`);
        }
        let r: Reply;
        try {
          r = typeof step.reply === 'function' ? step.reply(body) : step.reply;
        } catch (e) {
          return fail(`request #${this.received.length}: the scripted reply failed: ${(e as Error).message}`);
        }
        if (typeof r.status === 'number') {
          const raw = r as { status: number; body?: unknown; headers?: Record<string, string> };
          res
            .writeHead(raw.status, { 'content-type': 'application/json', ...raw.headers })
            .end(raw.body === undefined ? '' : JSON.stringify(raw.body));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(r));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  /** Replace the script. */
  script(...steps: Step[]): void {
    this.steps = steps;
    this.received.length = 0;
    this.headers.length = 0;
    this.errors.length = 0;
  }

  /** Throws when a request was unexpected or failed its check, or when steps are left. */
  assertDone(): void {
    if (this.errors.length) throw new Error(`fake LLM: ${this.errors.join('; ')}`);
    if (this.steps.length) throw new Error(`fake LLM: ${this.steps.length} scripted step(s) never requested`);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
