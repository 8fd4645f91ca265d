import type { FastifyRequest } from 'fastify';

/**
 * The rate-limit bucket of a request: the `client_id` claim of its bearer token, else the
 * caller's IP. The token is only decoded here, not verified: a forged token can at worst
 * spend the budget of the client it names, and the services reject it anyway.
 */
export function rateLimitKey(request: FastifyRequest): string {
  const clientId = unverifiedClientId(request.headers.authorization);
  return clientId === undefined ? `ip:${request.ip}` : `client:${clientId}`;
}

const CLIENT_ID = /^[\w.:@-]{1,200}$/;

function unverifiedClientId(authorization: string | undefined): string | undefined {
  const match = authorization
    ? /^Bearer\s+([^.\s]+)\.([^.\s]+)\.[^.\s]*$/i.exec(authorization.trim())
    : null;
  if (!match) return undefined;
  const claims = parseJsonObject(Buffer.from(match[2], 'base64url').toString('utf8'));
  const clientId = claims?.['client_id'];
  return typeof clientId === 'string' && CLIENT_ID.test(clientId) ? clientId : undefined;
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object'
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    // Not a JWT payload: the request is limited by IP, and the service answers 401.
    return undefined;
  }
}
