/**
 * The web chat channel (docs/adapter-authoring.md; docs/web-protocol.md): channel `web`, account
 * `default`. The gateway mounts {@link WebChannel.router}, calls {@link WebChannel.attach}
 * with its HTTP server (the `WS /ws` endpoint) and `start(host)`; the outbox calls `send`.
 *
 * Replies survive reconnects and replicas: every reply frame is stored in
 * `skillgate.web_frames` with a per-conversation seq, pushed to local sockets, and announced
 * on `skillgate_web` so sockets on other replicas read it back from the table.
 */
import type { Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import type express from 'express';
import {
  type AdapterCapabilities,
  type AdapterHost,
  type ChannelAdapter,
  type Db,
  type FetchedAttachment,
  type InboundAttachment,
  type InboundMessage,
  type OutboundMessage,
  type OutboundTarget,
  renderWebHtml,
  type SendOptions,
  type SendResult,
  type WebDirectory,
} from '../../src/channel/index.ts';
import type { Logger } from '../../src/log/logger.ts';
import type { WebContext } from './context.ts';
import { createWebRouter } from './http.ts';
import { WebHub } from './hub.ts';
import { sendToWeb, setStatus } from './outbound.ts';
import { WebSocketEndpoint } from './socket.ts';
import { findOwnUpload } from './uploads.ts';

export { conversationIdFor } from './conversation.ts';

/** What {@link createWebChannel} needs. */
export interface WebChannelDeps {
  db: Db;
  log: Logger;
  /** Uploads go to `<dataDir>/uploads/`. */
  dataDir: string;
  /** The organisation of the web chat's role (tokens and contacts are of this org). */
  orgId: string;
  roleId: string;
  /** Demo identities allowed (the embedded default): the picker and `hello {scheme:'demo'}`. */
  demo: boolean;
  /** Epoch ms (tests inject one). */
  clock?: () => number;
  /** Contact lookup (the gateway's reads `src/identity/`: src/web-auth/directory.ts). */
  directory: WebDirectory;
  /** Markdown → sanitized HTML (default: the shared web dialect, src/channel/render). */
  renderHtml?: (md: string) => string;
}

/** The web channel: a {@link ChannelAdapter} plus its HTTP routes and WebSocket endpoint. */
export interface WebChannel extends ChannelAdapter {
  readonly channel: 'web';
  readonly account: 'default';
  /** Page, assets, sign-in, uploads, files (mount on the app before its fallback routes). */
  readonly router: express.Router;
  /** Serve `WS /ws` on `server` (upgrade handling; other paths are left alone). */
  attach(server: Server): void;
  /** Close sockets, stop listening. Idempotent. */
  close(): Promise<void>;
}

/** Capabilities of the web channel (docs/results.md: rich). */
export const WEB_CAPABILITIES: AdapterCapabilities = {
  display: 'rich',
  buttons: true,
  max_length: 16000,
  length_unit: 'utf16',
  typing: true,
  media: true,
  command_buttons: true,
};

/** The status text of `typing` (the page shows its English form when it runs in English). */
export const WORKING_STATUS = '处理中…';

/** Create the web channel. Starts listening for cross-replica pushes at `start`. */
export function createWebChannel(deps: WebChannelDeps): WebChannel {
  let host: AdapterHost | undefined;
  const hub = new WebHub(deps.db, deps.log);
  const ctx: WebContext = {
    db: deps.db,
    log: deps.log,
    dataDir: deps.dataDir,
    orgId: deps.orgId,
    demo: deps.demo,
    directory: deps.directory,
    hub,
    clock: deps.clock ?? Date.now,
    host: () => host,
    renderHtml: deps.renderHtml ?? renderWebHtml,
  };
  const endpoint = new WebSocketEndpoint(ctx);
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      await endpoint.close();
      await hub.stop();
      host = undefined;
    })());

  return {
    channel: 'web',
    account: 'default',
    capabilities: WEB_CAPABILITIES,
    router: createWebRouter(ctx),
    attach: (server) => endpoint.attach(server),
    async start(h: AdapterHost): Promise<void> {
      host = h;
      await hub.start();
    },
    stop: close,
    close,
    // Its own platform: a resend after an unknown outcome finds the frames already stored.
    sendIdempotency: 'platform_key' as const,
    send: (target: OutboundTarget, message: OutboundMessage, opts?: SendOptions): Promise<SendResult> =>
      sendToWeb(ctx, target, message, opts),
    typing: (target: OutboundTarget) => setStatus(ctx, target, WORKING_STATUS),
    progress: (target: OutboundTarget, note: string | null) => setStatus(ctx, target, note),
    async fetchAttachment(att: InboundAttachment, msg: InboundMessage): Promise<FetchedAttachment> {
      const id = att.platform_ref.upload_id;
      if (typeof id !== 'string') throw new Error('web attachment without upload_id');
      const u = await findOwnUpload(deps.db, { dataDir: deps.dataDir, orgId: deps.orgId, contactKey: msg.actor.id, id });
      if (!u) throw new Error('upload not found for this sender');
      return { data: await readFile(u.path), filename: u.filename, mime_type: u.mime_type };
    },
  };
}
