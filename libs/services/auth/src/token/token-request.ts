import { MAX_IDENTIFIER_LENGTH, OAuthError } from '@comanda/http';

/** A client credentials request, as parsed from the form and the Authorization header. */
export interface TokenRequest {
  clientId: string;
  clientSecret: string;
  /** Requested scopes; undefined: everything granted. */
  scopes: string[] | undefined;
}

/**
 * RFC 6749 §2.3.1, §4.4.2 and §3.3: form-encoded body, `grant_type=client_credentials`,
 * client authentication in the body or by HTTP Basic but never both, parameters at most once.
 * The body arrives parsed by the HTTP adapter (a repeated parameter as an array).
 */
export function parseTokenRequest(
  body: unknown,
  contentType: string | undefined,
  authorization: string | undefined,
): TokenRequest {
  if (!/^application\/x-www-form-urlencoded\b/i.test(contentType ?? '') || !isRecord(body)) {
    throw new OAuthError(
      'invalid_request',
      'The request body must be application/x-www-form-urlencoded.',
    );
  }
  const form = new Map<string, string>();
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value)) {
      throw new OAuthError('invalid_request', `The parameter ${name} was sent more than once.`);
    }
    if (typeof value === 'string') form.set(name, value);
  }
  const grantType = form.get('grant_type');
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
  const basic = parseBasic(authorization);
  const formId = form.get('client_id');
  const formSecret = form.get('client_secret');

  if (basic && (formSecret !== undefined || (formId !== undefined && formId !== basic.clientId))) {
    throw new OAuthError(
      'invalid_request',
      'Authenticate the client either by HTTP Basic or by form fields, not both.',
    );
  }
  if (grantType !== 'client_credentials') {
    throw new OAuthError(
      'unsupported_grant_type',
      'Only grant_type=client_credentials is supported.',
    );
  }
  const clientId = basic?.clientId ?? formId;
  const clientSecret = basic?.clientSecret ?? formSecret;
  if (!basic && [clientId, clientSecret].some(hasControlCharacter)) {
    throw new OAuthError(
      'invalid_request',
      'client_id and client_secret must not contain control characters.',
    );
  }
  if ((clientId?.length ?? 0) > MAX_IDENTIFIER_LENGTH || (clientSecret?.length ?? 0) > 1024) {
    throw new OAuthError(
      'invalid_request',
      `client_id may have at most ${MAX_IDENTIFIER_LENGTH} characters, client_secret 1024.`,
    );
  }
  if (!clientId || !clientSecret) {
    throw new OAuthError(
      'invalid_client',
      'Client authentication is required (client_id and client_secret).',
    );
  }
  const scope = form.get('scope')?.trim();
  return {
    clientId,
    clientSecret,
    scopes: scope ? scope.split(/ +/) : undefined,
  };
}

function parseBasic(
  header: string | undefined,
): { clientId: string; clientSecret: string } | undefined {
  if (!header) return undefined;
  const match = /^Basic +([A-Za-z0-9+/]+=*)$/i.exec(header.trim());
  if (!match) {
    throw new OAuthError(
      'invalid_request',
      'The Authorization header of a token request must use the Basic scheme.',
    );
  }
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'Malformed Basic credentials.');
  let credentials: { clientId: string; clientSecret: string };
  try {
    // RFC 6749 §2.3.1: both parts are form-encoded before they are joined.
    credentials = {
      clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    throw new OAuthError('invalid_client', 'Malformed Basic credentials.');
  }
  if (hasControlCharacter(credentials.clientId) || hasControlCharacter(credentials.clientSecret)) {
    throw new OAuthError('invalid_client', 'Malformed Basic credentials.');
  }
  return credentials;
}

/**
 * RFC 6749 Appendix A: client ids and secrets are printable (VSCHAR). Control characters are
 * refused before anything reaches the database, which rejects a NUL with an error of its own.
 */
function hasControlCharacter(value: string | undefined): boolean {
  // eslint-disable-next-line no-control-regex
  return value !== undefined && /[\u0000-\u001f\u007f]/.test(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
