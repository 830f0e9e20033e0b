/**
 * Golden cases of the contract kit, found by file pattern so that adding a case is adding a
 * file :
 *
 * - `<name>.inbound.json` ({@link InboundCase}): one webhook delivery (a payload file next to
 *   it, or an inline body) with its headers/query and an optional clock time → the expected
 *   action, HTTP status, the subset of the normalized {@link InboundMessage} handed to the host
 *   (field names as in the fixtures' expected.json), and platform calls the adapter must make
 *   (e.g. `answerCallbackQuery`, a polite "unsupported" reply).
 * - `<name>.outbound.json` ({@link OutboundCase}): one {@link OutboundMessage} (media paths
 *   relative to the case file) → the expected platform API calls (method/path and a body
 *   subset, in order), their count, and properties of the chunks.
 *
 * Subset matching ({@link matchSubset}): every key of the expected value must be present and
 * equal in the actual one (recursively; arrays compare element-wise with equal length); keys the
 * case does not name are not checked.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { InboundMessage, LengthUnit, OutboundMessage, OutboundTarget } from '../../src/channel/index.ts';
import type { FakeReply } from './fake-server.ts';

/**
 * What a correct adapter does with a delivery (the `action` vocabulary of
 * the fixtures, plus `reject`):
 * - `process` / `process_as_edit` / `process_callback` — exactly one `accepted` at the host, the
 *   message matching `expected.message` (kind `message` / `edit` / `callback`);
 * - `drop_duplicate` — fed after the cases in `after`; nothing new accepted; still 2xx;
 * - `ignore` — nothing accepted with `addressed_to_bot: true`; 2xx;
 * - `unsupported` — nothing accepted; 2xx; usually a polite reply in `expected.calls`;
 * - `respond_challenge` — a handshake answered (body subset in `expected.response_body`);
 * - `reject` — refused with `expected.status` (401 / 400), nothing accepted, no platform call.
 */
export type InboundAction =
  | 'process'
  | 'process_as_edit'
  | 'process_callback'
  | 'drop_duplicate'
  | 'ignore'
  | 'unsupported'
  | 'respond_challenge'
  | 'reject';

/** One expected platform API call (matched in order against the fake's recorded requests). */
export interface ExpectedCall {
  /** HTTP method (default any). */
  method?: string;
  /** A regular expression (source text) the request path must match, e.g. `/sendMessage$`. */
  path: string;
  /** Subset of the parsed body (JSON, or form/multipart fields by name). */
  body?: Record<string, unknown>;
  /** Subset of the query string. */
  query?: Record<string, string>;
  /** Multipart files the request must carry: field name and exact (Unicode) file name; `bytes_of` = a file next to the case whose bytes must equal the part's. */
  files?: { name?: string; filename: string; bytes_of?: string }[];
}

/** `<name>.inbound.json`. */
export interface InboundCase {
  /** Case name (file name without `.inbound.json`), set by the loader. */
  name: string;
  /** Absolute path of the case file, set by the loader. */
  file: string;
  /** One line on what it shows (and the doc it comes from). */
  description?: string;
  /** The request body as a file next to the case (exact bytes sent). */
  payload_file?: string;
  /** Or the body inline: an object/array is sent as compact JSON, a string as its UTF-8 bytes. */
  body?: unknown;
  method?: string;
  /** Path after `/webhooks/<channel>/<account>` (default `""`). */
  path?: string;
  /** Extra request headers (lower-case names are used). */
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** Sign the body with the suite's `sign` helper (default true; false to send `headers` as they are). */
  sign?: boolean;
  /** The clock time (ISO-8601) while this case runs (replay windows, received_at); default the suite's start time. */
  now?: string;
  /** Case names fed before this one to the same adapter (e.g. the original of a redelivery). */
  after?: string[];
  /** Scripted fake replies installed before the delivery. */
  fake?: ScriptedReply[];
  expected: {
    action: InboundAction;
    /** HTTP status (default 200 for every action but `reject`, which needs one). */
    status?: number;
    /** Subset of the {@link InboundMessage} the host received (for `process*`). */
    message?: Partial<InboundMessage> & Record<string, unknown>;
    /** Subset of the webhook response body (object bodies) or the exact string. */
    response_body?: Record<string, unknown> | string;
    /** Platform calls the adapter must have made by the time the webhook answered (or within the settle wait). */
    calls?: ExpectedCall[];
  };
}

/** A one-shot reply queued on the fake before a case runs. */
export interface ScriptedReply {
  method?: string;
  /** Regular expression source matched against the request path. */
  path: string;
  reply: FakeReply;
  /** How many matching requests it answers (default 1). */
  times?: number;
}

/** `<name>.outbound.json`. */
export interface OutboundCase {
  name: string;
  file: string;
  description?: string;
  /** Target overrides (default `{channel, account: 'default', chat_id: '10000001'}` from the suite). */
  target?: Partial<OutboundTarget>;
  /**
   * The message to send; `media[].path` relative to the case file. Strings may use
   * `{"repeat": "x", "times": 5000}` objects in `text` / `display_md` (expanded by the loader,
   * concatenated when in an array) so long cases stay small.
   */
  message: OutboundMessage;
  fake?: ScriptedReply[];
  expected: {
    /** `send` result: ok, or the failure's retryable flag (default ok: true). */
    ok?: boolean;
    retryable?: boolean;
    /** Ordered subset of calls: each must match a later request than the previous one. */
    calls?: ExpectedCall[];
    /** Exact number of requests whose path matches each regular expression (source text). */
    count?: Record<string, number>;
    /** Chunk properties over the requests matching `path` (regular expression source). */
    chunks?: {
      path: string;
      /** Field of the body holding the text (`text`, `caption`, or a dotted path). */
      field: string;
      /** Each chunk measures ≤ `max` in `unit`, is non-empty, and has no lone surrogate. */
      max: number;
      unit: LengthUnit;
      /** Minimum number of chunks (e.g. 2 for a 5000-char reply). */
      min_count?: number;
      /** Strings that must appear whole in exactly one chunk each (e.g. the emoji at the split point). */
      intact?: string[];
      /** Every chunk's text contains all of these. */
      each_contains?: string[];
      /** The concatenation of all chunks contains all of these (e.g. `&lt;`). */
      contains?: string[];
    };
  };
}

/** A string built by the loader: `{repeat, times}` or an array of strings/repeats concatenated. */
type Stringish = string | { repeat: string; times: number } | Stringish[];

function expand(v: unknown): unknown {
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || (x && typeof x === 'object' && 'repeat' in x))) {
    return v.map((x) => expand(x) as string).join('');
  }
  if (v && typeof v === 'object' && 'repeat' in v && 'times' in v) {
    const r = v as { repeat: string; times: number };
    return r.repeat.repeat(r.times);
  }
  return v as Stringish;
}

function listCases(dir: string, suffix: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((f) => join(dir, f));
}

/** Every `*.inbound.json` in `dir` (sorted by name). @throws when a file is not valid JSON. */
export function loadInboundCases(dir: string): InboundCase[] {
  return listCases(dir, '.inbound.json').map((file) => {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Omit<InboundCase, 'name' | 'file'>;
    return { ...c, name: file.slice(dir.length + 1, -'.inbound.json'.length), file };
  });
}

/** Every `*.outbound.json` in `dir`; `text`/`display_md` repeats expanded, media paths made absolute. */
export function loadOutboundCases(dir: string): OutboundCase[] {
  return listCases(dir, '.outbound.json').map((file) => {
    const c = JSON.parse(readFileSync(file, 'utf8')) as Omit<OutboundCase, 'name' | 'file'>;
    const message = { ...c.message, text: expand(c.message.text) as string };
    if (c.message.display_md !== undefined) message.display_md = expand(c.message.display_md) as string | null;
    if (message.media)
      message.media = message.media.map((m) => ({ ...m, path: isAbsolute(m.path) ? m.path : resolve(dirname(file), m.path) }));
    return { ...c, message, name: file.slice(dir.length + 1, -'.outbound.json'.length), file };
  });
}

/** The exact request body bytes of an inbound case. */
export function inboundBody(c: InboundCase): Buffer {
  if (c.payload_file) return readFileSync(resolve(dirname(c.file), c.payload_file));
  if (c.body === undefined) return Buffer.alloc(0);
  if (typeof c.body === 'string') return Buffer.from(c.body, 'utf8');
  return Buffer.from(JSON.stringify(c.body), 'utf8');
}

/**
 * Compare `actual` to the `expected` subset. Returns the mismatches as `path: expected … got …`
 * lines (empty = match). `null` in expected matches null or undefined.
 */
export function matchSubset(actual: unknown, expected: unknown, path = '$'): string[] {
  if (expected === null) return actual === null || actual === undefined ? [] : [`${path}: expected null, got ${JSON.stringify(actual)}`];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      return [`${path}: expected ${expected.length} items, got ${JSON.stringify(actual)}`];
    }
    return expected.flatMap((e, i) => matchSubset(actual[i], e, `${path}[${i}]`));
  }
  if (typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected as Record<string, unknown>).flatMap(([k, v]) =>
      matchSubset((actual as Record<string, unknown>)[k], v, `${path}.${k}`),
    );
  }
  return actual === expected ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}
