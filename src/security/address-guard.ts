import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * SSRF guard: webhook URLs are customer input, so the service must not be made to call its own network. A URL may
 * be called only over http(s), and only when every address its host resolves to is a public unicast address —
 * unless private addresses are allowed (WEBHOOK_ALLOW_PRIVATE, the embedded setup). The ranges come from ipaddr.js.
 */
export type ResolvedAddress = { address: string; family: 4 | 6 };

/** How a host name becomes addresses; the system resolver by default, tests give their own. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: ResolveHost = async hostname =>
  (await lookup(hostname, { all: true, verbatim: true })).map(a => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

export type AddressPolicy = { allowPrivate: boolean; resolveHost: ResolveHost };

/** Why a URL may not be called: its form, or where its host leads. */
export class TargetRefused extends Error {
  constructor(
    message: string,
    readonly reason: 'INVALID_URL' | 'UNRESOLVABLE' | 'PRIVATE_ADDRESS',
  ) {
    super(message);
  }
}

// Global unicast IPv6 (2000::/3): excludes IPv4-compatible (::/96), discard, NAT64 and other special prefixes at once.
const globalUnicastV6 = ipaddr.parseCIDR('2000::/3');

/**
 * An address a webhook may be sent to: IPv4 or IPv6 whose range is plain unicast (not private, loopback,
 * link-local, CGNAT, multicast, unspecified, broadcast, reserved, documentation, 6to4, Teredo...). An IPv4-mapped
 * IPv6 address is judged as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 0) return false;
  const parsed = ipaddr.process(bare); // turns ::ffff:a.b.c.d into a.b.c.d
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  return parsed.match(globalUnicastV6) && parsed.range() === 'unicast';
}

/** A socket's peer on this machine: 127.0.0.0/8, ::1, or an IPv4-mapped loopback address. */
export function isLoopbackAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  return ipaddr.process(address).range() === 'loopback';
}

/**
 * Whether a peer's address is one of `entries` (addresses or CIDRs, IPv4-mapped addresses judged as IPv4) or loopback.
 * Throws on an entry that is neither.
 */
export function loopbackOr(entries: readonly string[]): (address: string) => boolean {
  const ranges = entries.map(entry => {
    const cidr = entry.includes('/') ? entry : `${entry}/${ipaddr.parse(entry).kind() === 'ipv4' ? 32 : 128}`;
    const [range, bits] = ipaddr.parseCIDR(cidr);
    return { range, bits };
  });
  return address => {
    if (isLoopbackAddress(address)) return true;
    if (isIP(address) === 0) return false;
    const peer = ipaddr.process(address);
    return ranges.some(({ range, bits }) => range.kind() === peer.kind() && peer.match(range, bits));
  };
}

const maxUrlLength = 2048;

/** The URL's form: absolute, http or https, a host, no user name or password in it (they would end up in logs). */
export function parseWebhookUrl(raw: string): URL {
  if (raw.length > maxUrlLength) throw new TargetRefused(`URL longer than ${maxUrlLength} characters`, 'INVALID_URL');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('not an absolute URL', 'INVALID_URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TargetRefused('only http and https URLs are allowed', 'INVALID_URL');
  if (!url.hostname) throw new TargetRefused('the URL has no host', 'INVALID_URL');
  if (url.username || url.password) throw new TargetRefused('credentials in the URL are not allowed', 'INVALID_URL');
  return url;
}

/** The host as a resolver or a socket wants it: IPv6 literals without their brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * Where a request to `url` may go: the address to connect to (the first one resolved), after checking every
 * address the host resolves to. The caller connects to exactly this address, so a second DNS answer cannot swap it.
 */
export async function resolveTarget(url: URL, policy: AddressPolicy): Promise<ResolvedAddress> {
  const host = hostOf(url);
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    addresses = await policy.resolveHost(host).catch(() => []);
    if (addresses.length === 0) throw new TargetRefused(`${host} could not be resolved`, 'UNRESOLVABLE');
  }
  if (!policy.allowPrivate) {
    const refused = addresses.find(a => !isPublicAddress(a.address));
    if (refused) {
      const which = literal !== 0 ? host : `${host} resolves to ${refused.address}, which`;
      throw new TargetRefused(`${which} is not a public address`, 'PRIVATE_ADDRESS');
    }
  }
  return addresses[0]!;
}
