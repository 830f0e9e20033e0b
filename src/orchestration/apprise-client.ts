/**
 * A small client of the Apprise API server (`APPRISE_API_URL`, docs/configuration.md), over undici:
 *
 * - stateless `POST {base}/notify/` with `urls` (Apprise URLs, space separated);
 * - stored config `POST {base}/notify/{key}` with an optional `tag`;
 * - `title`, `body`, `type` (info|success|warning|failure), `format` (text|markdown|html);
 * - attachments as `multipart/form-data`, one repeated `attach` field per file.
 *
 * Source: caronc/apprise-api README (the Apprise API's stateless `POST /notify/`). Answers:
 * 200 sent; 204 no configuration for the key; 400 bad request; 424 at least one notification
 * failed or the tag matched nothing; 431 payload too large; 5xx server trouble. With
 * `Accept: application/json` the error body is `{"error": "…", "details": […]}`.
 *
 * The result is a channel {@link SendResult}: the outbox decides about retries from it. URLs
 * may carry credentials; they never appear in an error text.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Dispatcher, FormData } from 'undici';
import type { SendResult } from '../channel/types.ts';
import { sendPhaseOfError, sendPhaseOfStatus } from '../channel/send-outcome.ts';
import { mimeTypes } from '../config/lazy-packages.ts';

/** Apprise notification types. */
export type AppriseType = 'info' | 'success' | 'warning' | 'failure';

/** One notification for the Apprise API. Exactly one of `urls` / `key`. */
export interface AppriseRequest {
  /** Stateless Apprise URLs (`json://…`, `mailto://…`, `tgram://…`). */
  urls?: string[];
  /** A configuration key stored on the Apprise API server (1-128 `[A-Za-z0-9_-]`). */
  key?: string;
  /** With `key`: which tagged URLs (`,` = OR, space/`+` = AND). */
  tag?: string | null;
  title?: string;
  body: string;
  type?: AppriseType;
  format?: 'text' | 'markdown' | 'html';
  /** Absolute paths of local files, sent as multipart `attach`. */
  attach?: { path: string; filename?: string }[];
}

/** Options of {@link sendToApprise}. */
export interface AppriseClientOptions {
  /** `APPRISE_API_URL`, e.g. `http://apprise:8000` (a trailing `/` is fine). */
  baseUrl: string;
  /** Per-request timeout, ms (default 30000). */
  timeoutMs?: number;
  /** An undici dispatcher (tests, proxies). */
  dispatcher?: Dispatcher;
}

/** A valid Apprise API config key. */
export const APPRISE_KEY_RE = /^[A-Za-z0-9_-]{1,128}$/;

function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const secs = Number(header);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : null;
}

/** The server's own reason from a JSON `{error}` body, else the text (first 500 chars). */
function reasonOf(status: number, text: string): string {
  let reason = text.trim();
  try {
    const parsed = JSON.parse(text) as { error?: unknown; details?: unknown };
    if (parsed && typeof parsed.error === 'string' && parsed.error) reason = parsed.error;
  } catch {
    /* not JSON: the text itself */
  }
  return `Apprise API HTTP ${status}${reason ? `: ${reason.slice(0, 500)}` : ''}`;
}

/**
 * Permanent or worth a retry: 408/429/5xx (but 501) are transient; other 4xx — a bad request,
 * no configuration (204 is handled as a failure too), a failed service (424), too large
 * (431) — would fail the same way again.
 */
function retryable(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501);
}

/**
 * Send one notification. Never throws: a network error is a retryable failure, an answer
 * other than 200 is a failure carrying the server's reason, a missing attachment file a
 * permanent one.
 */
export async function sendToApprise(req: AppriseRequest, opts: AppriseClientOptions): Promise<SendResult> {
  const base = opts.baseUrl.replace(/\/+$/, '');
  let path: string;
  if (req.key) {
    if (!APPRISE_KEY_RE.test(req.key))
      return { ok: false, retryable: false, error: `invalid Apprise config key "${req.key}"`, code: 'bad_key' };
    path = `/notify/${encodeURIComponent(req.key)}`;
  } else if (req.urls && req.urls.length > 0) {
    path = '/notify/';
  } else {
    return { ok: false, retryable: false, error: 'no Apprise URL or config key to notify', code: 'no_target' };
  }
  const fields: Record<string, string> = { body: req.body };
  if (req.urls && !req.key) fields.urls = req.urls.join(' ');
  if (req.key && req.tag) fields.tag = req.tag;
  if (req.title) fields.title = req.title;
  if (req.type) fields.type = req.type;
  if (req.format) fields.format = req.format;

  // undici is loaded at the first notification, not by every start (docs/performance.md "Start-up").
  const { fetch, FormData } = await import('undici');
  let body: string | FormData;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (req.attach && req.attach.length > 0) {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    for (const a of req.attach) {
      let data: Buffer;
      try {
        data = await readFile(a.path);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'read_failed';
        return { ok: false, retryable: false, error: `attachment ${basename(a.path)} cannot be read (${code})`, code: 'attachment' };
      }
      const name = a.filename || basename(a.path);
      const type = mimeTypes().lookup(name) || 'application/octet-stream';
      form.append('attach', new Blob([data], { type }), name);
    }
    body = form;
  } else {
    body = JSON.stringify(fields);
    headers['content-type'] = 'application/json';
  }

  try {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
      ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    });
    const text = await res.text().catch(() => '');
    if (res.status === 200) return { ok: true, message_ids: [] };
    if (res.status === 204) {
      return { ok: false, retryable: false, error: `Apprise API HTTP 204: no configuration stored for key "${req.key ?? ''}"`, code: 204 };
    }
    return {
      ok: false,
      retryable: retryable(res.status),
      retry_after_ms: retryAfterMs(res.headers.get('retry-after')),
      error: reasonOf(res.status, text),
      code: res.status,
      ...(sendPhaseOfStatus(res.status) === 'unknown' ? { ambiguous: true } : {}),
    };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why = e.cause?.code ?? e.cause?.message ?? e.message;
    // Written but unanswered: Apprise may have notified (it has no idempotency key).
    const ambiguous = sendPhaseOfError(err) === 'unknown';
    return {
      ok: false,
      retryable: true,
      error: `Apprise API unreachable at ${base}: ${why}`,
      code: 'network',
      ...(ambiguous ? { ambiguous } : {}),
    };
  }
}
