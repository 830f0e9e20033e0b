/**
 * HTTP runner (R-FORM-05, R-FORM-06, R-FORM-07, R-FORM-11, A-47; docs/skill-authoring.md): one
 * request described by the TOML named in skill.toml `[exec] config`. The input is the
 * request (body for POST/PUT/PATCH, query otherwise); no runtime context is sent.
 */
import type { RawOutcome } from '../envelope/types.ts';
import type { Logger } from '../log/logger.ts';
import type { RuntimeContext } from '../runtime/types.ts';
import type { SkillRecord } from '../registry/types.ts';
import { BODY_METHODS, HttpConfigError, lookupParam, readHttpConfig, substitute } from './http-config.ts';
import { startWall, stopMessage } from './wall.ts';

/** Response bodies beyond this many bytes fail the call. */
export const MAX_RESPONSE_BYTES = 50 * 1024 * 1024;
/** Characters of a non-2xx body quoted in the error. */
const ERROR_BODY_CHARS = 200;

/** Options of {@link runHttp}. */
export interface HttpOptions {
  /** Wall of the call, seconds; the request timeout is min(timeout_sec, wallSec). */
  wallSec: number;
  abortSignal?: AbortSignal;
  /** The skill's secret parameters; a `$NAME` fallback before the process environment. */
  secretEnv?: Record<string, string>;
  log: Logger;
}

/**
 * Append `input` to `url` as a query string: scalars as text, arrays of scalars as repeated
 * keys, objects (and arrays holding objects) JSON-encoded; null/undefined omitted.
 */
export function withQuery(url: URL, input: Record<string, unknown>): URL {
  const out = new URL(url);
  for (const [k, v] of Object.entries(input)) {
    if (v === null || v === undefined) continue;
    if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) {
      for (const x of v) if (x !== null && x !== undefined) out.searchParams.append(k, String(x));
    } else out.searchParams.append(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  return out;
}

async function readCapped(res: Response): Promise<string | null> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function errorTypeFor(status: number): 'config' | 'transient' | 'recoverable' {
  if (status === 401 || status === 403) return 'config';
  if (status === 408 || status === 429 || status >= 500) return 'transient';
  return 'recoverable';
}

/**
 * Run an HTTP skill. `$NAME` in the URL and header values is replaced by the skill
 * parameter NAME (see `lookupParam`, R-CFG-04; a missing one becomes "" and is logged by
 * name only). POST/PUT/PATCH send `JSON.stringify(input)` with `content-type:
 * application/json`; other methods send the input as a query string (`withQuery`).
 *
 * @returns `returned` with the parsed JSON body of a 2xx response, or `{output: text}` when
 *   it is not JSON; `failed` with `HTTP <status>: <first 200 chars of body>` and
 *   `details.status` on a non-2xx status, a config error (`config`, non-retriable), a
 *   network error, a body over {@link MAX_RESPONSE_BYTES}, or timeout / abort. Never throws.
 */
export async function runHttp(
  skill: SkillRecord,
  input: Record<string, unknown>,
  ctx: RuntimeContext,
  opts: HttpOptions,
): Promise<RawOutcome> {
  const log = opts.log.child({ skill: skill.name });
  const file = skill.exec?.config;
  if (!file)
    return { kind: 'failed', error: `skill "${skill.name}": HTTP exec needs a config file`, error_type: 'config', non_retriable: true };
  let config;
  try {
    config = await readHttpConfig(file);
  } catch (err) {
    const msg = err instanceof HttpConfigError ? err.message : (err as Error).message;
    return { kind: 'failed', error: `skill "${skill.name}": ${msg}`, error_type: 'config', non_retriable: true };
  }
  const missing = new Set<string>();
  const lookup = (name: string): string | null => lookupParam(name, skill.name, ctx, opts.secretEnv);
  let url: URL;
  try {
    url = new URL(substitute(config.url, lookup, missing));
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported scheme ${url.protocol}`);
  } catch (err) {
    return {
      kind: 'failed',
      error: `skill "${skill.name}": [request] url is not a valid http(s) URL (${(err as Error).message})`,
      error_type: 'config',
      non_retriable: true,
    };
  }
  const headers = new Headers();
  for (const [k, v] of Object.entries(config.headers)) headers.set(k, substitute(v, lookup, missing));
  if (missing.size > 0) log.warn({ parameters: [...missing] }, 'HTTP skill parameters not configured; substituted ""');

  const hasBody = BODY_METHODS.has(config.method);
  if (hasBody && !headers.has('content-type')) headers.set('content-type', 'application/json');
  if (!headers.has('accept')) headers.set('accept', 'application/json, */*;q=0.5');
  if (!hasBody) url = withQuery(url, input);

  const timeoutSec = Math.min(config.timeoutSec ?? opts.wallSec, opts.wallSec);
  const wall = startWall(timeoutSec, [opts.abortSignal, ctx.abort_signal ?? undefined]);
  log.debug({ method: config.method, url: config.url }, 'HTTP skill request');
  try {
    const res = await fetch(url, {
      method: config.method,
      headers,
      ...(hasBody ? { body: JSON.stringify(input) } : {}),
      signal: wall.signal,
      redirect: 'follow',
    });
    const text = await readCapped(res);
    if (text === null)
      return { kind: 'failed', error: `skill "${skill.name}": the HTTP response is larger than ${MAX_RESPONSE_BYTES / 1024 / 1024} MB` };
    if (res.status < 200 || res.status > 299) {
      const short = text.replace(/\s+/g, ' ').trim().slice(0, ERROR_BODY_CHARS);
      return {
        kind: 'failed',
        error: `HTTP ${res.status}: ${short || res.statusText}`,
        error_type: errorTypeFor(res.status),
        details: { status: res.status },
      };
    }
    try {
      return { kind: 'returned', value: JSON.parse(text) };
    } catch {
      return { kind: 'returned', value: { output: text } };
    }
  } catch (err) {
    const cause = wall.cause();
    if (cause) {
      const timeout = cause.kind === 'timeout';
      return {
        kind: 'failed',
        error: stopMessage(skill.name, cause),
        ...(timeout ? { error_type: 'transient' as const } : {}),
        details: timeout ? { timeout: true, timeout_sec: cause.afterSec } : { aborted: true },
      };
    }
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why = e.cause?.code ?? e.cause?.message ?? e.message;
    return { kind: 'failed', error: `skill "${skill.name}": HTTP request failed (${why})`, error_type: 'transient' };
  } finally {
    wall.dispose();
  }
}
