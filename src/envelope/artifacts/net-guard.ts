/**
 * SSRF guard for URL materialisation (spec 000 §6.3(1); house rule "downloads refuse private
 * addresses"; CONTRACTS.md §11 `SKILLGATE_FETCH_ALLOW`). A URL is fetched only when every
 * address its host resolves to is public — or explicitly allowed — and the connection is then
 * pinned to the checked address (see http-get.ts), so DNS rebinding cannot switch it.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import net from 'node:net';

/** Ranges never fetched unless allowed: loopback, private, link-local (incl. cloud metadata
 * 169.254.169.254), CGNAT, "this network", multicast, reserved, unique-local, v6 link-local. */
const BLOCKED_V4: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const BLOCKED_V6: ReadonlyArray<[string, number]> = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
];

const blocked = new net.BlockList();
for (const [a, p] of BLOCKED_V4) blocked.addSubnet(a, p, 'ipv4');
for (const [a, p] of BLOCKED_V6) blocked.addSubnet(a, p, 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`), else undefined. */
function mappedV4(address: string): string | undefined {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m?.[1];
}

/** True when `address` (an IP literal) is in a blocked range; non-IP input → true. */
export function isBlockedAddress(address: string): boolean {
  const v4 = mappedV4(address);
  if (v4 !== undefined) return isBlockedAddress(v4);
  const family = net.isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Split `SKILLGATE_FETCH_ALLOW` (comma-separated `host[:port]` or CIDR) into entries. */
export function parseFetchAllow(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

interface HostRule {
  host: string;
  port?: number;
}

/** A compiled fetch policy: allowlist + trusted origins. */
export interface FetchPolicy {
  hosts: HostRule[];
  cidrs: net.BlockList;
  trustedOrigins: Set<string>;
}

function familyName(ip: string): 'ipv4' | 'ipv6' {
  return net.isIP(ip) === 6 ? 'ipv6' : 'ipv4';
}

/**
 * Compile the allowlist. Entries: a CIDR (`10.1.0.0/16`, `fd00::/8`) or a bare IP (matches
 * resolved addresses, any port); `host` (any port) or `host:port` / `[v6]:port` (matches the
 * URL's host name — or, for an IP, the resolved address — and the effective port).
 * `trustedOrigins` are origins (`https://api.telegram.org`) configured by the operator (API
 * roots of channels, Apprise, the model) and are fetched without the address check.
 * Invalid entries are ignored.
 */
export function compileFetchPolicy(fetchAllow: readonly string[] = [], trustedOrigins: readonly string[] = []): FetchPolicy {
  const policy: FetchPolicy = { hosts: [], cidrs: new net.BlockList(), trustedOrigins: new Set() };
  for (const raw of fetchAllow) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    const slash = entry.indexOf('/');
    if (slash > 0) {
      const addr = entry.slice(0, slash);
      const prefix = Number(entry.slice(slash + 1));
      if (net.isIP(addr) !== 0 && Number.isInteger(prefix)) {
        try {
          policy.cidrs.addSubnet(addr, prefix, familyName(addr));
        } catch {
          // out-of-range prefix: ignored
        }
      }
      continue;
    }
    if (net.isIP(entry) !== 0) {
      policy.cidrs.addAddress(entry, familyName(entry));
      continue;
    }
    const bracket = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(entry);
    if (bracket) {
      policy.hosts.push({ host: bracket[1]!, port: bracket[2] ? Number(bracket[2]) : undefined });
      continue;
    }
    const hostPort = /^([^:]+):(\d+)$/.exec(entry);
    if (hostPort) policy.hosts.push({ host: hostPort[1]!, port: Number(hostPort[2]) });
    else if (!entry.includes(':')) policy.hosts.push({ host: entry });
  }
  for (const o of trustedOrigins) {
    try {
      policy.trustedOrigins.add(new URL(o).origin);
    } catch {
      // not a URL: ignored
    }
  }
  return policy;
}

/** The host name of a URL without IPv6 brackets, lower-cased. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** The effective port of an http(s) URL. */
export function portOf(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

function allowed(policy: FetchPolicy, host: string, address: string, port: number): boolean {
  const v4 = mappedV4(address) ?? address;
  if (policy.cidrs.check(v4, familyName(v4))) return true;
  return policy.hosts.some((r) => (r.host === host || r.host === v4) && (r.port === undefined || r.port === port));
}

/** An address the connection is pinned to. */
export interface PinnedAddress {
  address: string;
  family: 4 | 6;
}

/** Why a URL was not fetched (see messages.ts for the texts). */
export type GuardRefusal =
  | { ok: false; reason: 'scheme' }
  | { ok: false; reason: 'dns'; host: string }
  | { ok: false; reason: 'refused'; host: string; address: string };

/** Resolver signature (tests inject one): every address of `host`. */
export type Resolver = (host: string) => Promise<PinnedAddress[]>;

/** The system resolver: `dns.lookup(host, {all: true})`. */
export const systemResolver: Resolver = async (host) => {
  const list = await dnsLookup(host, { all: true, verbatim: true });
  return list.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * Check one URL (each redirect hop is checked again by the caller): http/https only; resolve
 * the host (all addresses); refuse when any address is blocked and not allowed, unless the
 * URL's origin is trusted. @returns the address to pin the connection to, or the refusal.
 * Never throws.
 */
export async function guardUrl(
  url: URL,
  policy: FetchPolicy,
  resolve: Resolver = systemResolver,
): Promise<({ ok: true } & PinnedAddress) | GuardRefusal> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'scheme' };
  const host = hostOf(url);
  let addresses: PinnedAddress[];
  if (net.isIP(host) !== 0) {
    addresses = [{ address: host, family: net.isIP(host) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      addresses = [];
    }
  }
  if (addresses.length === 0) return { ok: false, reason: 'dns', host };
  if (!policy.trustedOrigins.has(url.origin)) {
    const port = portOf(url);
    for (const a of addresses) {
      if (isBlockedAddress(a.address) && !allowed(policy, host, a.address, port)) {
        return { ok: false, reason: 'refused', host, address: a.address };
      }
    }
  }
  return { ok: true, ...addresses[0]! };
}
