/**
 * The web chat wire format (docs/web-protocol.md): JSON text frames, `v: 1`, over `WS /ws`.
 * Shapes follow the proposal of the web fixtures, adopted with the changes the
 * protocol document lists. Only plain data here: no I/O.
 */

import { randomBytes } from 'node:crypto';

/** Protocol version of every frame. */
export const PROTOCOL_VERSION = 1;

/** Random once per process: transient ids of two replicas or two runs differ. */
const TRANSIENT_TAG = randomBytes(6).toString('base64url');
let transientCount = 0;

/**
 * The `id` of a transient server frame (`status`, `user.ack`, `error`, `pong`, `hello.ok`):
 * `s_<process tag>_<counter, base 36>`, unique, never a stored frame's `s_<seq>` (the `_` after
 * the tag). Nothing is authorized by a frame id (a client answers a confirmation with its
 * `confirm_token`, acks match `client_msg_id`), so it need not be unguessable: a counter, not
 * random bytes per frame.
 */
export function transientFrameId(): string {
  return `s_${TRANSIENT_TAG}_${(++transientCount).toString(36)}`;
}

/** Limits the server enforces and announces in `hello.ok.limits`. */
export const LIMITS = {
  /** Longest `user.message.text`, UTF-16 code units. */
  max_text_chars: 16000,
  /** Largest upload, bytes (50 MiB). */
  max_upload_bytes: 50 * 1024 * 1024,
  /** Client frames allowed per connection per window. */
  max_frames_per_10s: 20,
  /** Most attachments one message may carry. */
  max_attachments: 20,
} as const;

/** Length of the rate-limit window, ms. */
export const RATE_WINDOW_MS = 10_000;
/** Interval the client pings at, s; the server closes a socket silent for 3 intervals. */
export const HEARTBEAT_S = 25;
/** Frames sent as history on a hello without `resume`. */
export const HISTORY_FRAMES = 50;
/** Largest client frame accepted by the socket, bytes (text 16 000 UTF-16 units ≤ 64 KiB UTF-8). */
export const MAX_CLIENT_FRAME_BYTES = 256 * 1024;

/** WebSocket close codes (4xxx = application). */
export const CLOSE = {
  /** No or a refused `hello` (authentication failed or absent within the hello timeout). */
  unauthorized: 4401,
  /** Repeated rate-limit abuse. */
  rate_limited: 4429,
  /** Heartbeat missed. */
  timeout: 4408,
  /** Server shutting down. */
  going_away: 1001,
} as const;

/** Error codes of the `error` frame. */
export type WebErrorCode = 'unauthorized' | 'bad_frame' | 'rate_limited' | 'text_too_long' | 'unknown_upload' | 'not_ready' | 'internal';

/** How a client authenticates in `hello`. `cookie` uses the HttpOnly cookie sent at upgrade. */
export type HelloAuth = { scheme: 'bearer'; token: string } | { scheme: 'demo'; contact: string } | { scheme: 'cookie' };

/** An attachment reference in `user.message` (client-declared fields are informative only). */
export interface UploadRef {
  upload_id: string;
  filename?: string;
  mime_type?: string;
  size?: number;
  sha256?: string;
}

/** Frames the client sends. */
export type ClientFrame =
  | { v: 1; type: 'hello'; id?: string; auth?: HelloAuth; resume?: { last_server_seq?: number } | null; client?: { locale?: string } }
  | {
      v: 1;
      type: 'user.message';
      id?: string;
      client_msg_id: string;
      text: string;
      reply_to?: string | null;
      attachments?: UploadRef[];
    }
  | { v: 1; type: 'confirm.response'; id?: string; confirm_token: string; choice: string }
  | { v: 1; type: 'stop'; id?: string; client_msg_id?: string }
  | { v: 1; type: 'ping'; id?: string }
  | { v: 1; type: 'pong'; id?: string };

/** The media item of an `assistant.media` frame. */
export interface MediaItem {
  kind: 'image' | 'file' | 'audio' | 'video';
  /** `/files/<file_id>` (served to the conversation's owner only), or null when the file has no id. */
  url: string | null;
  filename: string;
  mime_type: string | null;
  size: number | null;
  caption_md?: string | null;
}

/** Body of a stored server frame (the envelope `v, type, id, ts, seq, conversation_id` is added on store). */
export type StoredFrameBody =
  | {
      /** The user's own message, stored so history after a reload shows both sides. */
      type: 'user.echo';
      client_msg_id: string;
      /** The text verbatim (rendered as text, never as markup). */
      text: string;
      attachments: { filename: string }[];
    }
  | {
      type: 'assistant.message';
      /** Markdown (or plain, see `format`) text of the reply. */
      text: string;
      format: 'markdown' | 'plain';
      /** Server-sanitized HTML rendering of `text` (+ `display_md`), or null when none. */
      html: string | null;
      display_md: string | null;
      reply_to: string | null;
      final: boolean;
      kind: 'reply' | 'notice' | 'progress';
    }
  | { type: 'assistant.media'; reply_to: string | null; media: MediaItem }
  /** The reference ids the files of message `reply_to` got (docs/web-protocol.md). */
  | { type: 'upload.refs'; reply_to: string | null; uploads: { ref: string; filename: string }[] }
  | {
      type: 'confirm.request';
      /** `confirm` (confirm / cancel buttons) or `choice` (a question's options `1`…`n`). */
      kind: 'confirm' | 'choice';
      confirm_token: string;
      prompt_md: string;
      prompt_html: string | null;
      options: { id: string; label: string; style?: string }[];
      expires_at: string;
    };

/** A server frame as stored in `skillgate.web_frames` and sent on the socket. */
export type StoredFrame = StoredFrameBody & { v: 1; id: string; ts: string; seq: number; conversation_id: string };

/** Server frames that are not stored (never replayed). */
export type TransientFrame =
  | {
      v: 1;
      type: 'hello.ok';
      id: string;
      ts: string;
      seq: number;
      conversation_id: string;
      user: { id: string; display_name: string };
      limits: typeof LIMITS;
      heartbeat_s: number;
    }
  | { v: 1; type: 'user.ack'; id: string; ts: string; client_msg_id: string; status: 'accepted' | 'duplicate' | 'ignored' }
  | { v: 1; type: 'status'; id: string; ts: string; conversation_id: string; text: string | null }
  | { v: 1; type: 'error'; id: string; ts: string; code: WebErrorCode; message: string; ref?: string | null; retry_after_ms?: number }
  | { v: 1; type: 'pong'; id: string; ts: string }
  | { v: 1; type: 'ping'; id: string; ts: string };

/** Any frame the server sends. */
export type ServerFrame = StoredFrame | TransientFrame;

/** True when `v` is a plain object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Parse one client text frame. Returns the frame, or a reason it was refused (not JSON, wrong
 * version, unknown type, missing/ill-typed fields). Never throws.
 */
export function parseClientFrame(raw: string): { ok: true; frame: ClientFrame } | { ok: false; error: string; id?: string } {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  if (!isRecord(v)) return { ok: false, error: 'a frame is a JSON object' };
  const id = typeof v.id === 'string' ? v.id.slice(0, 100) : undefined;
  if (v.v !== PROTOCOL_VERSION) return { ok: false, error: 'unsupported protocol version (v must be 1)', id };
  const bad = (error: string) => ({ ok: false as const, error, id });
  switch (v.type) {
    case 'hello': {
      const auth = v.auth;
      if (auth !== undefined && !isRecord(auth)) return bad('hello.auth must be an object');
      if (isRecord(auth)) {
        if (auth.scheme === 'bearer' && typeof auth.token !== 'string') return bad('hello.auth.token must be a string');
        if (auth.scheme === 'demo' && typeof auth.contact !== 'string') return bad('hello.auth.contact must be a string');
        if (!['bearer', 'demo', 'cookie'].includes(String(auth.scheme))) return bad('hello.auth.scheme must be bearer, demo or cookie');
      }
      if (v.resume !== undefined && v.resume !== null && !isRecord(v.resume)) return bad('hello.resume must be an object');
      return { ok: true, frame: v as ClientFrame };
    }
    case 'user.message': {
      if (typeof v.client_msg_id !== 'string' || !/^[A-Za-z0-9_.:-]{1,100}$/.test(v.client_msg_id)) {
        return bad('user.message.client_msg_id must be 1-100 characters of A-Z a-z 0-9 _ . : -');
      }
      if (typeof v.text !== 'string') return bad('user.message.text must be a string');
      if (v.attachments !== undefined && v.attachments !== null) {
        if (!Array.isArray(v.attachments) || !v.attachments.every((a) => isRecord(a) && typeof a.upload_id === 'string')) {
          return bad('user.message.attachments must be a list of {upload_id}');
        }
      }
      return { ok: true, frame: v as ClientFrame };
    }
    case 'confirm.response':
      if (typeof v.confirm_token !== 'string' || typeof v.choice !== 'string')
        return bad('confirm.response needs confirm_token and choice');
      return { ok: true, frame: v as ClientFrame };
    case 'stop':
    case 'ping':
    case 'pong':
      return { ok: true, frame: v as ClientFrame };
    default:
      return bad(`unknown frame type ${JSON.stringify(String(v.type)).slice(0, 60)}`);
  }
}
