import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** `10.0.0.0/8, 192.168.1.7` → ranges; an empty setting trusts no proxy. */
export function parseTrustedProxies(setting: string | undefined): Range[] {
  return (setting ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      if (entry.includes('/')) return ipaddr.parseCIDR(entry);
      const address = ipaddr.parse(entry);
      return [address, address.kind() === 'ipv4' ? 32 : 128] as Range;
    });
}

function normalised(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
    ? (parsed as ipaddr.IPv6).toIPv4Address()
    : parsed;
}

function isTrusted(address: string, trusted: readonly Range[]): boolean {
  const parsed = normalised(address);
  if (!parsed) return false;
  return trusted.some(
    ([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits),
  );
}

/**
 * The address a request came from, for rate limits: the socket's peer, unless that peer is a
 * trusted proxy; then the rightmost `X-Forwarded-For` entry that is not a trusted proxy
 * (entries left of it were written by the client and prove nothing).
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: readonly Range[],
): string {
  const socketAddress = peer ?? 'unknown';
  if (trusted.length === 0 || !isTrusted(socketAddress, trusted)) return socketAddress;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean);
  for (let index = hops.length - 1; index >= 0; index--) {
    if (!isTrusted(hops[index], trusted)) return normalised(hops[index])?.toString() ?? hops[index];
  }
  return hops[0] ?? socketAddress;
}
