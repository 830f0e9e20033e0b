/**
 * Test rig of the operators' console: the console's router on its own express app on
 * 127.0.0.1:0, with a migrated database, the built-in skills, a real outbox and a config of
 * two roles. `call()` speaks to `/admin/api/*` with a bearer token or a cookie.
 */
import { BUILD_DIRECTORY_CHANNELS } from '../helpers/channels.ts';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import type { ChannelAdapter } from '../../src/channel/types.ts';
import type { ConfigFile } from '../../src/config/file.ts';
import type { SkillServices } from '../../src/executor/skill-call.ts';
import { withCall } from '../../src/wiring/skill-call.ts';
import { createLogger } from '../../src/log/logger.ts';
import { createOutbox } from '../../src/outbox/index.ts';
import type { Outbox } from '../../src/outbox/types.ts';
import { discoverSkills } from '../../src/registry/discover.ts';
import type { Db } from '../../src/store/db.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createAdminConsole, type AdminConsoleDeps } from '../../src/console/index.ts';

export const ADMIN_TOKEN = 'test-admin-token-' + 'x'.repeat(24);
const SKILLS_DIR = fileURLToPath(new URL('../../skills/', import.meta.url));

/** A started console. */
export interface ConsoleRig {
  url: string;
  deps: AdminConsoleDeps;
  outbox: Outbox;
  /** Adapters by `<channel>:<account>` the outbox delivers to. */
  adapters: Map<string, ChannelAdapter>;
  /** Call `/admin/api/<path>`: `auth` = 'token' (bearer), a cookie string, or none. */
  call(
    path: string,
    opts?: { method?: string; body?: unknown; auth?: 'token' | { cookie: string } | null; headers?: Record<string, string> },
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
  ): Promise<{ status: number; json: any; headers: Headers }>;
  close(): Promise<void>;
}

/** Start the console on `db` (migrated here). */
export async function startConsoleRig(
  db: Db,
  opts: { adminToken?: string | null; deps?: Partial<AdminConsoleDeps> } = {},
): Promise<ConsoleRig> {
  await migrate(db);
  const log = createLogger({ level: 'silent' });
  const registry = await discoverSkills([
    { dir: SKILLS_DIR, source: 'builtin' },
    { dir: join(SKILLS_DIR, 'examples'), source: 'builtin' },
  ]);
  const services = {
    db,
    registry,
    settings: { dataDir: '/nonexistent', walls: {} as never, fetchAllow: [], llm: undefined },
    secretKey: randomBytes(32),
    log,
  } as unknown as SkillServices;
  const withSkillCall = withCall(services);
  const config: ConfigFile = {
    roles: [
      { id: 'default', org_id: 'demo', skills: ['*'], access: 'open', allow: [] },
      { id: 'ops', org_id: 'demo', skills: ['*'], access: 'open', allow: [] },
    ],
    accounts: [],
  };
  const adapters = new Map<string, ChannelAdapter>();
  const adapterFor = (c: string, a: string) => adapters.get(`${c}:${a}`);
  const outbox = createOutbox(db, { log, adapterFor, maxAttempts: 1, pollMs: 50 });
  outbox.start();
  const deps: AdminConsoleDeps = {
    db,
    log,
    services: withSkillCall,
    config,
    defaultRoleId: 'default',
    channels: BUILD_DIRECTORY_CHANNELS,
    outbox,
    adapterFor,
    adminToken: opts.adminToken === null ? undefined : (opts.adminToken ?? ADMIN_TOKEN),
    ...opts.deps,
  };
  const consoleApp = createAdminConsole(deps);
  const app = express();
  app.use(consoleApp.router);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    deps,
    outbox,
    adapters,
    async call(path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      const auth = o.auth === undefined ? 'token' : o.auth;
      if (auth === 'token') headers.authorization = `Bearer ${deps.adminToken}`;
      else if (auth) headers.cookie = auth.cookie;
      if (o.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${url}/admin/api/${path}`, {
        method: o.method ?? 'GET',
        headers,
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
      });
      const text = await res.text();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
      return { status: res.status, json, headers: res.headers };
    },
    async close() {
      await outbox.stop();
      await consoleApp.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
