/**
 * `POST /webhooks/<channel>/<account>` (and `GET` for URL-verification handshakes), docs/configuration.md
 * §6. The raw body is handed to the adapter untouched, so it can verify the signature over the
 * exact bytes before anything is parsed. `/webhooks/<channel>` is account `default`.
 */
import express from 'express';
import type { Logger } from '../log/logger.ts';
import { InboundRefusedError } from './bounds.ts';
import type { AdapterHost, ChannelAdapter, WebhookAdapter, WebhookRequest, WebhookResponse } from './types.ts';

/** Largest webhook body accepted, bytes (platform events are far smaller; files are fetched). */
export const WEBHOOK_BODY_LIMIT = 2 * 1024 * 1024;

/** True when the adapter receives by webhook. */
export function isWebhookAdapter(a: ChannelAdapter | undefined): a is WebhookAdapter {
  return !!a && typeof (a as Partial<WebhookAdapter>).handleWebhook === 'function';
}

/** Convert an express request (raw body) into a {@link WebhookRequest}. */
export function toWebhookRequest(req: express.Request, path: string): WebhookRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  const query: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.query)) query[k] = Array.isArray(v) ? String(v[0]) : typeof v === 'string' ? v : undefined;
  return { method: req.method, path, headers, query, body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), ip: req.ip };
}

/** Write a {@link WebhookResponse}. */
export function sendWebhookResponse(res: express.Response, out: WebhookResponse): void {
  for (const [k, v] of Object.entries(out.headers ?? {})) res.setHeader(k, v);
  res.status(out.status);
  if (out.body === undefined) res.end();
  else if (typeof out.body === 'string') {
    if (!res.getHeader('content-type')) res.type('text/plain');
    res.send(out.body);
  } else res.json(out.body);
}

/**
 * Run `adapter.handleWebhook`; an event the core refuses for good ({@link InboundRefusedError},
 * e.g. an identifier over its bound) becomes a 400 so the platform stops redelivering it.
 * @throws what the adapter throws otherwise (storage down → the router answers 503)
 */
export async function handleWebhookRequest(adapter: WebhookAdapter, req: WebhookRequest, host: AdapterHost): Promise<WebhookResponse> {
  try {
    return await adapter.handleWebhook(req, host);
  } catch (err) {
    if (err instanceof InboundRefusedError) return { status: 400, body: { error: 'bad_request', reason: err.message } };
    throw err;
  }
}

/**
 * The webhook router. Unknown channel/account → 404; an event the core refuses for good (an
 * identifier over its bound, src/channel/bounds.ts) → 400; an adapter that throws otherwise
 * (storage down) → 503 so the platform redelivers later.
 */
export function createWebhookRouter(opts: {
  adapterFor(channel: string, account: string): ChannelAdapter | undefined;
  host: () => AdapterHost | undefined;
  log: Logger;
}): express.Router {
  const r = express.Router();
  const raw = express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT });
  const handle = async (req: express.Request, res: express.Response): Promise<void> => {
    const channel = String(req.params.channel);
    const account = typeof req.params.account === 'string' && req.params.account !== '' ? req.params.account : 'default';
    const adapter = opts.adapterFor(channel, account);
    const host = opts.host();
    if (!isWebhookAdapter(adapter) || !host) {
      res.status(404).type('text/plain').send('unknown webhook');
      return;
    }
    try {
      sendWebhookResponse(res, await handleWebhookRequest(adapter, toWebhookRequest(req, ''), host));
    } catch (err) {
      opts.log.error({ err: (err as Error).message, channel, account }, 'webhook could not be stored; the platform will redeliver');
      if (!res.headersSent) res.status(503).type('text/plain').send('try again later');
    }
  };
  r.all('/webhooks/:channel', raw, handle);
  r.all('/webhooks/:channel/:account', raw, handle);
  r.use('/webhooks', ((err: unknown, _req, res, next) => {
    const e = err as { status?: number; type?: string };
    if (e && (e.type === 'entity.too.large' || e.status === 413)) {
      res.status(413).type('text/plain').send('payload too large');
      return;
    }
    next(err);
  }) as express.ErrorRequestHandler);
  return r;
}
