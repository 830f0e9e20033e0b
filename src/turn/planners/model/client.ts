/**
 * A minimal OpenAI-compatible chat-completions client (docs/configuration.md: `LLM_BASE_URL`
 * includes `/v1`, `LLM_API_KEY`, `LLM_MODEL`), on undici 7.
 *
 * `POST {baseUrl}/chat/completions` with `Authorization: Bearer <apiKey>` (when a key is set),
 * JSON in, JSON out, no streaming. Bounded retries on 429 / 5xx / connection errors, honouring
 * `Retry-After` (seconds or an HTTP date, capped). Wire format: OpenAI "Create chat completion"
 * (messages with `tool_calls` / `role: "tool"`, `tools` in the function form).
 */
import type { JsonSchema } from '../../../registry/types.ts';

/** One tool call the model asked for (OpenAI wire form; `arguments` is a JSON string). */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** One message of a conversation (OpenAI wire form). */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool in the OpenAI function form (the same shape as the registry's ModelTool). */
export interface ChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
}

/** One request. */
export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ChatTool[];
  /** `none` forbids tool calls (used for the forced wrap-up answer). */
  tool_choice?: 'auto' | 'none';
  signal?: AbortSignal;
}

/** The first choice of a response. */
export interface ChatReply {
  content: string;
  tool_calls: ChatToolCall[];
  finish_reason: string | null;
}

/** Connection settings of a model endpoint. */
export interface ModelEndpoint {
  /** Base URL including `/v1`, without a trailing slash. */
  baseUrl: string;
  apiKey?: string;
  model: string;
}

/** Options of {@link ChatClient}. */
export interface ChatClientOptions extends ModelEndpoint {
  /** Retries after the first attempt on 429 / 5xx / connection errors (default 2). */
  maxRetries?: number;
  /** Time to receive response headers, ms (default 120 000). */
  headersTimeoutMs?: number;
  /** Time between body chunks, ms (default 120 000). */
  bodyTimeoutMs?: number;
  /** Longest wait between retries, ms (default 30 000); also caps `Retry-After`. */
  maxRetryDelayMs?: number;
  /** Sleep used between retries (tests inject an instant one). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** A failed model call; `status` is the HTTP status (0 for a connection error). */
export class ModelCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ModelCallError';
  }
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Delay asked by a `Retry-After` header, ms: delta-seconds or an HTTP date; undefined when
 * absent or unreadable. `now` in ms since the epoch.
 */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v.trim()) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function errorText(body: unknown, status: number): string {
  const err = (body as { error?: { message?: unknown } | string } | null)?.error;
  const msg = typeof err === 'string' ? err : typeof err?.message === 'string' ? err.message : '';
  return `model endpoint answered HTTP ${status}${msg ? `: ${msg.slice(0, 300)}` : ''}`;
}

function parseReply(body: unknown): ChatReply {
  const choice = (body as { choices?: unknown[] } | null)?.choices?.[0] as
    | { message?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }
    | undefined;
  if (!choice || typeof choice !== 'object' || !choice.message) {
    throw new ModelCallError('model endpoint answered without choices[0].message', 200, false);
  }
  const m = choice.message;
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
  const tool_calls: ChatToolCall[] = calls
    .filter(
      (c): c is { id?: unknown; function: { name: unknown; arguments?: unknown } } =>
        !!c && typeof c === 'object' && !!(c as { function?: unknown }).function,
    )
    .map((c, i) => ({
      id: typeof c.id === 'string' && c.id !== '' ? c.id : `call_${i}`,
      type: 'function',
      function: {
        name: String(c.function.name ?? ''),
        arguments: typeof c.function.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function.arguments ?? {}),
      },
    }));
  return {
    content: typeof m.content === 'string' ? m.content : '',
    tool_calls,
    finish_reason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
  };
}

/** The client. One instance per endpoint; safe to share between turns. */
export class ChatClient {
  readonly model: string;
  readonly baseUrl: string;
  private readonly opts: ChatClientOptions;

  constructor(opts: ChatClientOptions) {
    this.opts = opts;
    this.model = opts.model;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
  }

  /**
   * One chat completion (first choice).
   * @throws ModelCallError after the retries are spent, on a non-retryable status, or on an
   *   answer without a message; the abort reason when `signal` fires.
   */
  async chat(req: ChatRequest): Promise<ChatReply> {
    const body = JSON.stringify({
      model: this.model,
      messages: req.messages,
      ...(req.tools && req.tools.length > 0 ? { tools: req.tools, tool_choice: req.tool_choice ?? 'auto' } : {}),
    });
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    const maxRetries = this.opts.maxRetries ?? 2;
    const sleep = this.opts.sleep ?? defaultSleep;
    const cap = this.opts.maxRetryDelayMs ?? 30_000;
    let last: ModelCallError | undefined;
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      if (attempt > 0) {
        const wait = last && 'waitMs' in last ? Number((last as ModelCallError & { waitMs?: number }).waitMs) : NaN;
        await sleep(Math.min(cap, Number.isFinite(wait) ? wait : 500 * 2 ** (attempt - 1)), req.signal);
      }
      req.signal?.throwIfAborted();
      try {
        // undici is loaded at the first model call, not by every start (docs/performance.md "Start-up").
        const { request } = await import('undici');
        const res = await request(`${this.baseUrl}/chat/completions`, {
          method: 'POST',
          headers,
          body,
          signal: req.signal,
          headersTimeout: this.opts.headersTimeoutMs ?? 120_000,
          bodyTimeout: this.opts.bodyTimeoutMs ?? 120_000,
        });
        const text = await res.body.text();
        let parsed: unknown = null;
        try {
          parsed = text === '' ? null : JSON.parse(text);
        } catch {
          parsed = null;
        }
        if (res.statusCode >= 200 && res.statusCode < 300) {
          if (parsed === null) throw new ModelCallError('model endpoint answered with a body that is not JSON', res.statusCode, false);
          return parseReply(parsed);
        }
        const retryable = res.statusCode === 429 || res.statusCode >= 500;
        const err = new ModelCallError(errorText(parsed, res.statusCode), res.statusCode, retryable) as ModelCallError & {
          waitMs?: number;
        };
        err.waitMs = retryAfterMs(res.headers['retry-after'] as string | string[] | undefined);
        if (!retryable) throw err;
        last = err;
      } catch (e) {
        if (req.signal?.aborted) throw req.signal.reason ?? e;
        if (e instanceof ModelCallError) {
          if (!e.retryable) throw e;
          last = e;
        } else {
          last = new ModelCallError(`model endpoint unreachable: ${(e as Error).message}`, 0, true);
        }
      }
    }
    throw last ?? new ModelCallError('model call failed', 0, false);
  }
}
