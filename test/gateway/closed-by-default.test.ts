/**
 * Closed by default (docs/configuration.md "Demo identities", README "Running it on a
 * network"): the gateway listens on loopback unless HOST says otherwise; demo identities exist
 * only on loopback and only the seeded demo contacts; a demo sign-in never opens the console.
 * Real gateways on the embedded engine, reached over this machine's own addresses.
 */
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ConfigError } from '../../src/config/errors.ts';
import { demoIdentitiesOn, isLoopbackHost, loadSettings } from '../../src/config/settings.ts';
import { startGateway, type Gateway } from '../../src/gateway.ts';
import { issueSigninLink } from '../../src/web-auth/signin-links.ts';
import { createLogger } from '../../src/log/logger.ts';

/** This machine's own non-loopback IPv4 addresses. */
function ownAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && a.family === 'IPv4' && !a.internal)
    .map((a) => a!.address);
}

/** Whether a TCP connection to `host:port` is accepted. */
function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Open `/ws`, send `hello` with `auth`, and return the first frame and the close code. */
async function hello(url: string, auth: unknown, cookie?: string): Promise<{ first: Record<string, unknown> | null; code: number }> {
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/ws', { headers: cookie ? { cookie } : {} });
  let first: Record<string, unknown> | null = null;
  ws.on('message', (d) => (first ??= JSON.parse(String(d)) as Record<string, unknown>));
  await new Promise((r) => ws.once('open', r));
  ws.send(JSON.stringify({ v: 1, type: 'hello', id: 'h1', ...(auth ? { auth } : {}) }));
  const code = await new Promise<number>((r) => ws.once('close', (c) => r(c)));
  return { first, code };
}

const signin = (url: string, body: unknown): Promise<Response> =>
  fetch(`${url}/api/web/signin`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('settings: HOST and SKILLGATE_DEMO', () => {
  it('defaults to loopback with demo auto; demo is on only on loopback for the embedded default', () => {
    const s = loadSettings({});
    expect(s.host).toBe('127.0.0.1');
    expect(s.demo).toBe('auto');
    expect(demoIdentitiesOn(s)).toBe(true);
    expect(demoIdentitiesOn(loadSettings({ HOST: '0.0.0.0' }))).toBe(false);
    expect(demoIdentitiesOn(loadSettings({ HOST: '::' }))).toBe(false);
    expect(demoIdentitiesOn(loadSettings({ SKILLGATE_DEMO: 'off' }))).toBe(false);
    expect(demoIdentitiesOn(loadSettings({ HOST: '::1', SKILLGATE_DEMO: 'on' }))).toBe(true);
  });

  it('refuses SKILLGATE_DEMO=on beyond loopback, and unknown values, naming the variable', () => {
    for (const env of [{ HOST: '0.0.0.0', SKILLGATE_DEMO: 'on' }, { HOST: '192.0.2.7', SKILLGATE_DEMO: 'on' }, { SKILLGATE_DEMO: 'yes' }]) {
      let err: unknown;
      try {
        loadSettings(env);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).message).toContain('SKILLGATE_DEMO');
    }
  });

  it('tells loopback from everything else', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', '0:0:0:0:0:0:0:1']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.0.2.2', 'fd00::2', 'example.com', '128.0.0.1']) expect(isLoopbackHost(h), h).toBe(false);
  });
});

describe('a gateway started with the defaults', () => {
  let gateway: Gateway;
  const dir = mkdtempSync(join(tmpdir(), 'sg-closed-lo-'));

  beforeAll(async () => {
    gateway = await startGateway(
      loadSettings({ SKILLGATE_DATA_DIR: join(dir, 'data'), PORT: '0' }, dir),
      createLogger({ level: 'silent' }),
      {},
    );
    // An imported administrator besides the demo contacts.
    await gateway.db.query(
      `INSERT INTO skillgate.contacts (org_id, contact_key, name, team_role, is_admin) VALUES ('demo', 'boss', '老板', 'owner', true)`,
    );
  }, 120_000);
  afterAll(async () => gateway?.close());

  it("listens on loopback only: this machine's other addresses are refused", async () => {
    expect(await reachable('127.0.0.1', gateway.port)).toBe(true);
    for (const a of ownAddresses()) expect(await reachable(a, gateway.port), a).toBe(false);
  });

  it('offers and accepts the demo contacts, and no other contact of the directory', async () => {
    const cfg = (await (await fetch(`${gateway.url}/api/web/config`)).json()) as { demo: { contact_key: string }[] };
    expect(cfg.demo.map((c) => c.contact_key)).toEqual(['demo_reporter', 'demo_worker']);
    expect((await signin(gateway.url, { demo: 'demo_worker' })).status).toBe(200);
    expect((await signin(gateway.url, { demo: 'boss' })).status).toBe(401);
    const socket = await hello(gateway.url, { scheme: 'demo', contact: 'boss' });
    expect(socket.first).toMatchObject({ type: 'error', code: 'unauthorized' });
    expect(socket.code).toBe(4401);
  });

  it('a demo sign-in never opens the console, even for a contact an operator made is_admin', async () => {
    await gateway.db.query(`UPDATE skillgate.contacts SET is_admin = true WHERE org_id = 'demo' AND contact_key = 'demo_reporter'`);
    const res = await signin(gateway.url, { demo: 'demo_reporter' });
    expect(res.status).toBe(200);
    const token = decodeURIComponent(/sg_web=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '');
    expect(token).toMatch(/^wt_/);
    const admin = await fetch(`${gateway.url}/admin/api/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-skillgate-admin': '1' },
      body: JSON.stringify({ token }),
    });
    expect(admin.status).toBe(401);
    expect(admin.headers.get('set-cookie') ?? '').not.toMatch(/sg_admin=[^;]+\./);
  });
});

describe('a demo contact signing in with a link (asked for from a demo session)', () => {
  let gateway: Gateway;
  const dir = mkdtempSync(join(tmpdir(), 'sg-closed-link-'));
  afterAll(async () => gateway?.close());

  it('gets a demo session: no console, and nothing once demo identities are off', async () => {
    const data = join(dir, 'data');
    gateway = await startGateway(loadSettings({ SKILLGATE_DATA_DIR: data, PORT: '0' }, dir), createLogger({ level: 'silent' }), {});
    await gateway.db.query(`UPDATE skillgate.contacts SET is_admin = true WHERE org_id = 'demo' AND contact_key = 'demo_reporter'`);
    const link = await issueSigninLink(gateway.db, 'demo', 'demo_reporter', { via: 'chat:web', nowMs: Date.now(), base: gateway.url });
    const res = await signin(gateway.url, { link: link.code });
    expect(res.status).toBe(200);
    const token = decodeURIComponent(/sg_web=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '');
    const admin = await fetch(`${gateway.url}/admin/api/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-skillgate-admin': '1' },
      body: JSON.stringify({ token }),
    });
    expect(admin.status).toBe(401);
    await gateway.close();
    gateway = await startGateway(
      loadSettings({ SKILLGATE_DATA_DIR: data, PORT: '0', HOST: '0.0.0.0' }, dir),
      createLogger({ level: 'silent' }),
      {},
    );
    const cfg = (await (
      await fetch(`${gateway.url}/api/web/config`, { headers: { cookie: `sg_web=${encodeURIComponent(token)}` } })
    ).json()) as { me: unknown };
    expect(cfg.me).toBeNull();
  }, 240_000);
});

describe('a gateway started with HOST=0.0.0.0', () => {
  let gateway: Gateway;
  const dir = mkdtempSync(join(tmpdir(), 'sg-closed-any-'));

  beforeAll(async () => {
    gateway = await startGateway(
      loadSettings({ SKILLGATE_DATA_DIR: join(dir, 'data'), PORT: '0', HOST: '0.0.0.0' }, dir),
      createLogger({ level: 'silent' }),
      {},
    );
  }, 120_000);
  afterAll(async () => gateway?.close());

  it('serves the network, offers no demo identity and refuses demo sign-ins', async () => {
    for (const a of ownAddresses()) expect(await reachable(a, gateway.port), a).toBe(true);
    const cfg = (await (await fetch(`${gateway.url}/api/web/config`)).json()) as { demo: unknown; me: unknown };
    expect(cfg.demo).toBeNull();
    expect(cfg.me).toBeNull();
    expect((await signin(gateway.url, { demo: 'demo_reporter' })).status).toBe(401);
    const demo = await hello(gateway.url, { scheme: 'demo', contact: 'demo_reporter' });
    expect(demo.first).toMatchObject({ type: 'error', code: 'unauthorized' });
    expect(demo.code).toBe(4401);
  });

  it('closes a socket without sign-in with 4401, and the page has a sign-in screen', async () => {
    const none = await hello(gateway.url, null);
    expect(none.first).toMatchObject({ type: 'error', code: 'unauthorized' });
    expect(none.code).toBe(4401);
    const page = await (await fetch(`${gateway.url}/`)).text();
    expect(page).toContain('data-testid="signin"');
  });
});
