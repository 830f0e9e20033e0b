/**
 * The Open API calls of the Feishu adapter, through `@larksuiteoapi/node-sdk` 1.74.0 `Client`
 * (library-facts §2): every answer becomes a typed {@link ApiResult}. The SDK returns 2xx
 * answers with `code != 0` (they are failures here) and throws an AxiosError for non-2xx
 * (status, `{code,msg}` body and headers read from it). Never throws except for programming errors.
 *
 * The SDK's own logger is replaced by one that logs short strings only: the SDK logs whole
 * axios errors, whose config carries the `Authorization` header (secrets are never logged).
 */
import * as lark from '@larksuiteoapi/node-sdk';
import type { Logger } from '../../src/log/logger.ts';
import { type ChatType, sendPhaseOfError, sendPhaseOfStatus } from '../../src/channel/index.ts';
import type { FeishuLookups, MergedChild } from './inbound.ts';
import type { ApiAnswer } from './wire.ts';

/** One API outcome. */
export type ApiResult<T> =
  | { ok: true; data: T; headers?: Record<string, unknown> }
  | {
      ok: false;
      /** Platform business code when the body had one. */
      code: number | null;
      msg: string;
      /** HTTP status (null: no answer — network error). */
      status: number | null;
      headers: Record<string, unknown>;
      /** The request may have reached Feishu (no answer after write, or a 5xx): src/channel/send-outcome.ts. */
      unknown?: boolean;
    };

/** Settings of {@link createFeishuClient}. */
export interface FeishuClientOptions {
  appId: string;
  appSecret: string;
  /** Any base URL (`https://open.feishu.cn`, `https://open.larksuite.com`, a loopback fake). */
  domain: string;
  log: Logger;
}

/** A quiet SDK logger: string arguments only, at debug. */
export function sdkLogger(log: Logger): lark.Logger {
  const write = (...args: unknown[]): void => {
    const text = args
      .flat()
      .filter((a): a is string => typeof a === 'string')
      .join(' ')
      .slice(0, 300);
    if (text) log.debug({ sdk: 'lark' }, text);
  };
  return { error: write, warn: write, info: write, debug: write, trace: write };
}

/** Build the SDK client for one account. */
export function createFeishuClient(o: FeishuClientOptions): lark.Client {
  return new lark.Client({
    appId: o.appId,
    appSecret: o.appSecret,
    domain: o.domain,
    appType: lark.AppType.SelfBuild,
    logger: sdkLogger(o.log),
    loggerLevel: lark.LoggerLevel.error,
  });
}

/** Turn an SDK answer or throw into an {@link ApiResult}. */
export async function apiCall<T>(run: () => Promise<unknown>): Promise<ApiResult<T>> {
  try {
    const res = (await run()) as ApiAnswer<T> | null | undefined;
    if (res && typeof res === 'object' && typeof res.code === 'number' && res.code !== 0) {
      return { ok: false, code: res.code, msg: String(res.msg ?? ''), status: 200, headers: {} };
    }
    return { ok: true, data: (res && typeof res === 'object' && 'data' in res ? res.data : res) as T };
  } catch (err) {
    return errorResult(err);
  }
}

/** An AxiosError (or anything thrown) as a failed {@link ApiResult}. */
export function errorResult(err: unknown): ApiResult<never> & { ok: false } {
  const e = err as { response?: { status?: number; data?: unknown; headers?: Record<string, unknown> }; message?: string };
  const body = e.response?.data;
  const obj = body && typeof body === 'object' && !(Symbol.asyncIterator in (body as object)) ? (body as ApiAnswer) : {};
  const status = e.response?.status ?? null;
  const unknown = (status === null ? sendPhaseOfError(err) : sendPhaseOfStatus(status)) === 'unknown';
  return {
    ok: false,
    code: typeof obj.code === 'number' ? obj.code : null,
    msg: String(obj.msg ?? e.message ?? 'request failed'),
    status,
    headers: e.response?.headers ?? {},
    ...(unknown ? { unknown } : {}),
  };
}

/**
 * A multipart upload (im/v1/images, im/v1/files) with the file part named `filename`, as the
 * platform's docs show. Sent with fetch rather than through the SDK, whose upload methods
 * return only `data` (a non-zero `code` is lost) and send the file part without a filename.
 * The tenant token comes from the SDK's token manager. Never throws.
 * @param fields the form fields (`image_type`, or `file_type` + `file_name`)
 */
export async function uploadMultipart<T>(
  client: lark.Client,
  path: string,
  fields: Record<string, string>,
  field: string,
  file: Buffer,
  filename: string,
): Promise<ApiResult<T>> {
  try {
    const c = client as unknown as { domain: string; tokenManager: { getTenantAccessToken(): Promise<string | undefined> } };
    const token = await c.tokenManager.getTenantAccessToken();
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append(field, new Blob([file]), filename);
    const res = await fetch(`${String(c.domain).replace(/\/+$/, '')}${path}`, {
      method: 'POST',
      body: form,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    const headers: Record<string, unknown> = Object.fromEntries(res.headers.entries());
    let body: ApiAnswer<T> = {};
    try {
      const parsed: unknown = JSON.parse(await res.text());
      if (parsed && typeof parsed === 'object') body = parsed as ApiAnswer<T>;
    } catch {
      // not JSON: judged by the status alone
    }
    const code = typeof body.code === 'number' ? body.code : null;
    if (!res.ok || (code !== null && code !== 0))
      return { ok: false, code, msg: String(body.msg ?? res.statusText), status: res.status, headers };
    return { ok: true, data: body.data as T, headers };
  } catch (err) {
    return { ok: false, code: null, msg: (err as Error).message || 'request failed', status: null, headers: {} };
  }
}

/** `p`, or `fallback` when it has not settled within `ms` (the webhook must answer within 3 s). */
function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Lookups for normalization (contact name, bot open_id, chat type, merged messages), cached in
 * memory for `ttlMs` (names change rarely; nothing here is needed for correctness). Each gives
 * up after `timeoutMs` (default 1500) with its "unknown" value, so a slow contact API cannot
 * push the webhook answer past the platform's 3 s deadline.
 */
export function createLookups(
  client: lark.Client,
  opts: { botOpenId?: string; ttlMs?: number; timeoutMs?: number; now?: () => number } = {},
): FeishuLookups {
  const ttl = opts.ttlMs ?? 30 * 60_000;
  const limit = opts.timeoutMs ?? 1500;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { at: number; value: Promise<unknown> }>();
  /** `load()` cached under `key` while `keep(value)`; an unsettled load yields `fallback` after the time limit. */
  const cached = <T>(key: string, load: () => Promise<T>, keep: (v: T) => boolean, fallback: T): Promise<T> => {
    const hit = cache.get(key);
    if (hit && now() - hit.at < ttl) return hit.value as Promise<T>;
    const value = within(load(), limit, fallback).then((v) => {
      if (!keep(v)) cache.delete(key);
      return v;
    });
    cache.set(key, { at: now(), value });
    if (cache.size > 5000) cache.delete(cache.keys().next().value!);
    return value;
  };
  return {
    displayName: (openId) =>
      cached(
        `name:${openId}`,
        async () => {
          const r = await apiCall<{ user?: { name?: string } }>(() =>
            client.contact.user.get({ path: { user_id: openId }, params: { user_id_type: 'open_id' } }),
          );
          return r.ok ? String(r.data?.user?.name ?? '') : '';
        },
        (v) => v !== '',
        '',
      ),
    botOpenId: () =>
      opts.botOpenId
        ? Promise.resolve(opts.botOpenId)
        : cached(
            'bot',
            async () => {
              const r = await apiCall<unknown>(() => client.request({ method: 'GET', url: '/open-apis/bot/v3/info' }));
              // bot/v3/info answers `{code, msg, bot: {open_id, app_name}}` (no `data` wrapper).
              const bot = r.ok ? ((r.data as { bot?: { open_id?: string } } | undefined)?.bot ?? null) : null;
              return typeof bot?.open_id === 'string' && bot.open_id !== '' ? bot.open_id : null;
            },
            (v) => v !== null,
            null,
          ),
    chatType: (chatId) =>
      cached(
        `chat:${chatId}`,
        async (): Promise<ChatType | null> => {
          const r = await apiCall<{ chat_mode?: string }>(() => client.im.chat.get({ path: { chat_id: chatId } }));
          if (!r.ok) return null;
          return r.data?.chat_mode === 'p2p' ? 'direct' : 'group';
        },
        (v) => v !== null,
        null,
      ),
    mergedChildren: async (messageId) => {
      const r = await within(
        apiCall<{ items?: { message_id?: string; msg_type?: string; upper_message_id?: string; body?: { content?: string } }[] }>(() =>
          client.im.message.get({ path: { message_id: messageId } }),
        ),
        limit * 2,
        { ok: false, code: null, msg: 'timeout', status: null, headers: {} } as const,
      );
      if (!r.ok) return [];
      const out: MergedChild[] = [];
      for (const it of r.data?.items ?? []) {
        if (!it || it.message_id === messageId || it.upper_message_id !== messageId) continue;
        out.push({ message_id: String(it.message_id ?? ''), msg_type: String(it.msg_type ?? ''), content: String(it.body?.content ?? '') });
      }
      return out;
    },
  };
}
