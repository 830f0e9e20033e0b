/**
 * SSRF guard for URL materialisation (downloads refuse private
 * addresses; docs/configuration.md `SKILLGATE_FETCH_ALLOW`; docs/results.md "Which URLs are
 * fetched"). A URL is fetched only when every address its host resolves to is a globally
 * routable unicast address and none of this host's own interface addresses — or it is
 * explicitly allowed — and the connection is then pinned to the checked address (see
 * http-get.ts), so DNS rebinding cannot switch it.
 *
 * The ranges come from ipaddr.js (`range()`: the IANA IPv4/IPv6 special-purpose address
 * registries — loopback, private, link-local incl. cloud metadata, CGNAT, documentation,
 * benchmarking, multicast, reserved, 6to4/Teredo/NAT64 …); only `unicast` passes, for IPv6
 * only inside 2000::/3 (the global unicast allocation). IPv4-mapped IPv6 is judged as IPv4.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import net from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * The ipaddr.js range name of an IP literal (`unicast` for a globally routable one, else e.g.
 * `loopback`, `private`, `reserved`, `uniqueLocal`; `unallocated` for IPv6 outside 2000::/3),
 * or `invalid` for anything that is not an IP address.
 */
export function addressRange(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return 'invalid';
  const ip = ipaddr.process(bare); // IPv4-mapped IPv6 → IPv4
  const range = ip.range();
  if (range !== 'unicast') return range;
  if (ip.kind() === 'ipv6' && !ip.match(GLOBAL_UNICAST_V6)) return 'unallocated';
  return range;
}

/** The normalized text of an IP literal (mapped IPv6 as IPv4), for comparing addresses; null when not one. */
function normalizeIp(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return null;
  return ipaddr.process(bare).toNormalizedString();
}

/** Every address of this host's network interfaces (`os.networkInterfaces()`), normalized, read now. */
export function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      const n = normalizeIp(a.address);
      if (n) out.add(n);
    }
  }
  return out;
}

/**
 * True when `address` (an IP literal) may not be fetched: outside globally routable unicast
 * ({@link addressRange}), or one of `own` (default: this host's interface addresses, read
 * now); non-IP input → true.
 */
export function isBlockedAddress(address: string, own: ReadonlySet<string> = interfaceAddresses()): boolean {
  if (addressRange(address) !== 'unicast') return true;
  const n = normalizeIp(address);
  return n === null || own.has(n);
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

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`), else undefined. */
function mappedV4(address: string): string | undefined {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m?.[1];
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
 * the host once (all addresses); refuse when any address is blocked ({@link isBlockedAddress}:
 * not globally routable unicast, or this host's own) and not allowed, unless the URL's origin
 * is trusted. `own` overrides this host's interface addresses (tests).
 * @returns the address to pin the connection to, or the refusal. Never throws.
 */
export async function guardUrl(
  url: URL,
  policy: FetchPolicy,
  resolve: Resolver = systemResolver,
  own?: ReadonlySet<string>,
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
    const local = own ?? interfaceAddresses();
    for (const a of addresses) {
      if (isBlockedAddress(a.address, local) && !allowed(policy, host, a.address, port)) {
        return { ok: false, reason: 'refused', host, address: a.address };
      }
    }
  }
  return { ok: true, ...addresses[0]! };
}
