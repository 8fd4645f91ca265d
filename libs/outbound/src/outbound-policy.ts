import ipaddr from 'ipaddr.js';

/**
 * Where a deployment may send requests it builds from data its clients gave it (payment
 * partner URLs, webhook subscriptions). Production: https only, and only to public unicast
 * addresses, checked when the URL is saved and again at every connection. A test deployment
 * may use http and loopback or private addresses (local partners, sandboxes).
 */
export interface OutboundPolicy {
  requireHttps: boolean;
  allowNonPublicAddresses: boolean;
}

export function outboundPolicyFor(environment: 'test' | 'production'): OutboundPolicy {
  return environment === 'production'
    ? { requireHttps: true, allowNonPublicAddresses: false }
    : { requireHttps: false, allowNonPublicAddresses: true };
}

/** An outbound URL or address the policy refuses; `code` is stable, `message` says why. */
export class UnsafeUrlError extends Error {
  constructor(
    readonly code: 'url.invalid' | 'url.not_https' | 'url.non_public_address' | 'url.unresolvable',
    message: string,
  ) {
    super(message);
    this.name = 'UnsafeUrlError';
  }
}

/** Parses and checks the URL's form (not its DNS): scheme, no credentials, a host. */
export function parseOutboundUrl(raw: string, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('url.invalid', 'not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UnsafeUrlError('url.invalid', 'only http and https URLs are accepted');
  }
  if (policy.requireHttps && url.protocol !== 'https:') {
    throw new UnsafeUrlError('url.not_https', 'a production deployment sends only to https URLs');
  }
  if (url.username || url.password) {
    throw new UnsafeUrlError('url.invalid', 'credentials in the URL are not accepted');
  }
  const literal = ipLiteral(url.hostname);
  if (literal !== undefined) assertAddressAllowed(literal, policy);
  return url;
}

/** The address in a URL host when it is an IP literal (`[::1]` → `::1`), else undefined. */
export function ipLiteral(hostname: string): string | undefined {
  const bare =
    hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : undefined;
}

/** Throws unless the address is public unicast (or the policy allows any). */
export function assertAddressAllowed(address: string, policy: OutboundPolicy): void {
  if (policy.allowNonPublicAddresses) return;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    throw new UnsafeUrlError('url.invalid', `"${address}" is not an IP address`);
  }
  // ::ffff:127.0.0.1 is 127.0.0.1 on the wire.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (range !== 'unicast') {
    throw new UnsafeUrlError(
      'url.non_public_address',
      `the address resolves to a ${range} address, which a production deployment never calls`,
    );
  }
}
