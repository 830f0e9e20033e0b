/**
 * The fetch boundary of URL materialisation (docs/results.md "Which URLs are fetched"): only
 * globally routable unicast addresses (ipaddr.js ranges), never this machine's own interface
 * addresses (the real ones from os.networkInterfaces(), served by real HTTP servers bound to
 * them), on every redirect hop; SKILLGATE_FETCH_ALLOW still opens an address explicitly.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { realpathSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { processArtifacts, snapshotWorkspace } from '../../src/envelope/artifacts/index.ts';
import {
  addressRange,
  compileFetchPolicy,
  guardUrl,
  interfaceAddresses,
  isBlockedAddress,
} from '../../src/envelope/artifacts/net-guard.ts';
import { PNG, captureLogger, removeDir, tempDir } from './helpers.ts';

/** A server on `host` answering a PNG at /img.png and a 302 to `?to=` at /go; records the paths it saw. */
async function serve(host: string): Promise<{ url: (path: string) => string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    seen.push(u.pathname);
    if (u.pathname === '/go') {
      res.writeHead(302, { location: u.searchParams.get('to') ?? '/' });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
    res.end(PNG);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const h = host.includes(':') ? `[${host}]` : host;
  return {
    url: (path) => `http://${h}:${port}${path}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** This machine's own non-loopback addresses (link-local ones need a zone and are left out). */
const OWN = Object.values(networkInterfaces())
  .flatMap((l) => l ?? [])
  .filter((a) => !a.internal && !a.address.toLowerCase().startsWith('fe80:'))
  .map((a) => a.address);

describe('address ranges (ipaddr.js special-purpose registries)', () => {
  it('every reserved or special range is refused, also IPv4 inside IPv6 forms; public unicast passes', () => {
    const none = new Set<string>();
    for (const ip of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.2',
      '198.51.100.7',
      '203.0.113.9',
      '198.18.0.1',
      '192.0.0.8',
      '240.0.0.1',
      '192.88.99.1',
      '::1',
      '::',
      'fc00::1',
      'fd00::2',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:192.0.2.2',
      '64:ff9b::a00:1',
      '2002:a00:1::1',
      '2001::1',
      '2001:db8::1',
      '100::1',
      'fec0::1',
      '4000::1',
      'not-an-ip',
    ]) {
      expect(isBlockedAddress(ip, none), ip).toBe(true);
    }
    for (const ip of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(isBlockedAddress(ip, none), ip).toBe(false);
    }
    expect(addressRange('192.0.2.2')).toBe('reserved');
    expect(addressRange('4000::1')).toBe('unallocated');
  });

  it("this machine's own interface addresses are refused even when globally routable", async () => {
    const own = new Set(['8.8.4.4']);
    expect(isBlockedAddress('8.8.4.4', own)).toBe(true);
    const policy = compileFetchPolicy([]);
    const resolve = async () => [{ address: '8.8.4.4', family: 4 as const }];
    expect(await guardUrl(new URL('http://me.example/x.png'), policy, resolve, own)).toEqual({
      ok: false,
      reason: 'refused',
      host: 'me.example',
      address: '8.8.4.4',
    });
    // The default set is read from os.networkInterfaces(): loopback and every listed address.
    const real = interfaceAddresses();
    expect(real.has('127.0.0.1')).toBe(true);
    for (const a of OWN) expect(isBlockedAddress(a), a).toBe(true);
  });
});

describe("never fetched: this machine's own addresses, directly or after a redirect", () => {
  let ws: string;
  let loop: Awaited<ReturnType<typeof serve>>;
  const servers: Array<Awaited<ReturnType<typeof serve>>> = [];
  beforeAll(async () => {
    loop = await serve('127.0.0.1');
    for (const a of OWN) servers.push(await serve(a));
  });
  afterAll(async () => {
    await loop.close();
    for (const s of servers) await s.close();
  });
  beforeEach(async () => {
    ws = realpathSync(await tempDir('sg-boundary-'));
    return () => removeDir(ws);
  });
  const run = async (file_url: string, fetchAllow: string[]) => {
    const { log } = captureLogger();
    return processArtifacts(
      { success: true, file_url },
      { workspaceDir: ws, before: await snapshotWorkspace(ws), log, fetchAllow, lang: 'en' },
    );
  };

  it('a result URL on an own non-loopback address is not requested; a redirect there from an allowed server is not followed', async () => {
    const loopHost = new URL(loop.url('/')).host;
    for (const s of servers) {
      const direct = await run(s.url('/img.png'), []);
      expect(direct.artifacts).toEqual([]);
      expect((direct.artifact_errors as unknown[]).length).toBe(1);
      const hop = await run(loop.url(`/go?to=${encodeURIComponent(s.url('/img.png'))}`), [loopHost]);
      expect(hop.artifacts).toEqual([]);
      expect(s.seen).toEqual([]);
    }
    expect(loop.seen.filter((p) => p === '/go')).toHaveLength(servers.length);
  });

  it('a redirect to 127.0.0.1 (another port, not allowed) is refused on the hop; the allowed server itself is fetched', async () => {
    const other = await serve('127.0.0.1');
    try {
      const loopHost = new URL(loop.url('/')).host;
      const hop = await run(loop.url(`/go?to=${encodeURIComponent(other.url('/img.png'))}`), [loopHost]);
      expect(hop.artifacts).toEqual([]);
      expect(JSON.stringify(hop.artifact_errors)).toContain('127.0.0.1');
      expect(other.seen).toEqual([]);
      const ok = await run(loop.url('/img.png'), [loopHost]);
      expect((ok.artifacts as unknown[]).length).toBe(1);
    } finally {
      await other.close();
    }
  });
});
