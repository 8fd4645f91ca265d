import type { IncomingHttpHeaders } from 'node:http';

type HeaderValue = string | string[] | undefined;
export type OutgoingHeaders = Record<string, string | string[]>;

// RFC 9110 §7.6.1: connection-specific headers describe one hop and must not be forwarded.
// `host` is the upstream's own; `expect` is answered by the gateway's server itself.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
]);

/** True for a header that describes one hop (lower-case name); `connection` is one. */
export function isHopByHop(lowerCaseName: string): boolean {
  return HOP_BY_HOP.has(lowerCaseName);
}

/** The headers of one hop without the hop-by-hop ones, including those the Connection header names. */
export function endToEndHeaders(headers: Readonly<Record<string, HeaderValue>>): OutgoingHeaders {
  const named = connectionNames(headers['connection']);
  const result: OutgoingHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || named.has(lower)) continue;
    result[lower] = value;
  }
  return result;
}

export interface ForwardingFacts {
  requestId: string;
  traceparent: string;
  clientIp: string;
  protocol: string;
}

/** The request headers the upstream receives: end-to-end headers plus who asked and how. */
export function upstreamRequestHeaders(
  incoming: IncomingHttpHeaders,
  facts: ForwardingFacts,
): OutgoingHeaders {
  const headers = endToEndHeaders(incoming);
  const priorHops = listValues(incoming['x-forwarded-for']);
  headers['x-forwarded-for'] = [...priorHops, facts.clientIp].join(', ');
  headers['x-forwarded-proto'] = facts.protocol;
  // The auth service picks a tenant's issuer by the host the caller used.
  if (incoming.host) headers['x-forwarded-host'] = incoming.host;
  else delete headers['x-forwarded-host'];
  headers['x-request-id'] = facts.requestId;
  headers['traceparent'] = facts.traceparent;
  return headers;
}

function listValues(value: HeaderValue): string[] {
  // Nearly every request: no such header, or one value without a comma.
  if (value === undefined) return [];
  if (typeof value === 'string' && !value.includes(',')) {
    const only = value.trim();
    return only === '' ? [] : [only];
  }
  const values = Array.isArray(value) ? value : [value];
  return values.flatMap((entry) => entry.split(',').map((part) => part.trim())).filter(Boolean);
}

const NO_NAMES: ReadonlySet<string> = new Set();
const KEEP_ALIVE: ReadonlySet<string> = new Set(['keep-alive']);

/** The header names a Connection header lists (lower case): they describe this hop only. */
function connectionNames(value: HeaderValue): ReadonlySet<string> {
  if (value === undefined) return NO_NAMES;
  // What nearly every kept-alive request says, without a set made per request.
  if (value === 'keep-alive') return KEEP_ALIVE;
  return new Set(listValues(value).map((name) => name.toLowerCase()));
}

/** The first value of a header that may have come more than once. */
export function headerValue(value: HeaderValue): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
