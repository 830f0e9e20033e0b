/**
 * Shared parts of the messaging tests: the REAL outbox over the test database, started with a
 * short poll, delivering through the adapters a test registers; the messaging services a
 * skill call sees; a runtime-context stand-in with a session workspace.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChannelAdapter } from '../../src/channel/types.ts';
import { createLogger } from '../../src/log/logger.ts';
import { createOutbox, type Outbox } from '../../src/outbox/index.ts';
import type { MessagingServices } from '../../src/orchestration/messaging.ts';
import type { Db } from '../../src/store/db.ts';

/** A messaging environment over `db`. Call `stop()` when done. */
export interface MessagingEnv {
  outbox: Outbox;
  adapters: Map<string, ChannelAdapter>;
  messaging: MessagingServices;
  workspace: string;
  /** A runtime-context stand-in for a skill call of session `s1`. */
  ctx(extra?: Record<string, unknown>): Record<string, unknown>;
  stop(): Promise<void>;
}

/** Build the environment; the outbox loop runs until `stop()`. */
export function messagingEnv(db: Db, opts: { waitMs?: number; now?: () => Date } = {}): MessagingEnv {
  const adapters = new Map<string, ChannelAdapter>();
  const log = createLogger({ level: 'silent' });
  const outbox = createOutbox(db, {
    log,
    adapterFor: (c, a) => adapters.get(`${c}:${a}`),
    pollMs: 50,
    baseDelayMs: 60_000, // a retry never happens within a test
  });
  outbox.start();
  const workspace = mkdtempSync(join(tmpdir(), 'sg-msg-ws-'));
  const messaging: MessagingServices = {
    db,
    outbox,
    adapterFor: (c, a) => adapters.get(`${c}:${a}`),
    waitMs: opts.waitMs ?? 5000,
    now: opts.now,
    log,
  };
  return {
    outbox,
    adapters,
    messaging,
    workspace,
    ctx: (extra = {}) => ({ messaging, workspace_dir: workspace, session_id: 's1', org_id: 'demo', role_id: 'default', ...extra }),
    stop: () => outbox.stop(),
  };
}
