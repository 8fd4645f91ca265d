/**
 * What the gateway requires of a request before it forwards it, by path. The rules come
 * from the spec's "Authentication" table and the exemption list of docs/architecture.md; the services
 * enforce their own rules again behind it.
 */

const TOKEN_ENDPOINT = /^(?:\/auth\/[^/]+)?\/connect\/token$/;
const WELL_KNOWN = /^(?:\/auth\/[^/]+)?\/\.well-known(?:\/|$)/;
const NOTIFICATION_EVENTS = /^\/notifications\/merchants\/[^/]+\/events$/;
const HEALTH = /^\/health(?:\/|$)/;
const DOCS = /^\/docs(?:\/|$)/;

export const JSON_MEDIA_TYPE = 'application/json';
export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';
export const TEXT_MEDIA_TYPE = 'text/plain';

/** OAuth token endpoints: client authentication by form fields or HTTP Basic. */
export function isTokenEndpoint(path: string): boolean {
  return TOKEN_ENDPOINT.test(path);
}

/** Paths a caller reaches without `X-Api-Version: 0`: OAuth, partner events, health, docs. */
export function isVersionExempt(path: string): boolean {
  return (
    TOKEN_ENDPOINT.test(path) ||
    WELL_KNOWN.test(path) ||
    NOTIFICATION_EVENTS.test(path) ||
    HEALTH.test(path) ||
    DOCS.test(path)
  );
}

/**
 * Paths a caller reaches without a bearer token (ARCHITECTURE.md: the OAuth endpoints,
 * partner events, health, docs, and `/` which points to the docs). Every other request is
 * refused at the gateway from its headers when its token does not verify, before its body
 * is read.
 */
export function requiresBearer(path: string): boolean {
  return path !== '/' && !isVersionExempt(path);
}

/** The one media type a request body may have on this route. */
export function acceptedMediaType(method: string, path: string): string {
  if (TOKEN_ENDPOINT.test(path)) return FORM_MEDIA_TYPE;
  if (method === 'POST' && path === '/frontend/plugins') return TEXT_MEDIA_TYPE;
  return JSON_MEDIA_TYPE;
}

export interface BodyLimits {
  defaultBytes: number;
  pluginCodeBytes: number;
  /** The services' own, smaller limits by name (`SMALLER_SERVICE_BODY_LIMITS`). */
  serviceBytes: ReadonlyMap<string, number>;
}

/** The same limit the owning service applies, so an oversized body is 413 here, never 502. */
export function bodyLimitFor(
  method: string,
  path: string,
  limits: BodyLimits,
  upstream?: string,
): number {
  if (method === 'POST' && path === '/frontend/plugins') return limits.pluginCodeBytes;
  const own = upstream === undefined ? undefined : limits.serviceBytes.get(upstream);
  return own === undefined ? limits.defaultBytes : Math.min(own, limits.defaultBytes);
}

/** `application/json; charset=utf-8` → `application/json`. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';')[0].trim().toLowerCase();
  return type ? type : undefined;
}

const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Dot segments (`/entities/../admin`, also percent-encoded) would let a path pass the
 * gateway's checks as one route and reach the upstream as another; no public path has one.
 */
export function hasDotSegment(path: string): boolean {
  return path.split('/').some((segment) => DOT_SEGMENT.test(segment));
}
