import { ProblemError } from './problem.error';

/** The error codes of RFC 6749 §5.2. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope';

/**
 * A token endpoint error, answered as RFC 6749 §5.2 says (what OAuth libraries read: JSON
 * with `error` and `error_description`, `Cache-Control: no-store`), with the problem fields
 * beside them (ADR 0005). `invalid_client` is a 401 with `WWW-Authenticate: Basic`, every
 * other code a 400: RFC 6749 requires the challenge when the client authenticated with Basic,
 * and RFC 7235 §3.1 requires a challenge on every 401, also when the credentials came in the
 * form (Basic is the scheme this endpoint offers).
 */
export class OAuthError extends ProblemError {
  readonly description: string;

  constructor(
    readonly error: OAuthErrorCode,
    description: string,
  ) {
    const text = oauthDescription(description);
    super({
      status: error === 'invalid_client' ? 401 : 400,
      code: `oauth.${error}`,
      title: error,
      detail: text,
      headers: {
        ...(error === 'invalid_client' ? { 'www-authenticate': 'Basic realm="comanda"' } : {}),
        'cache-control': 'no-store',
        pragma: 'no-cache',
      },
      members: { error, error_description: text },
      mediaType: 'application/json; charset=utf-8',
    });
    this.description = text;
  }
}

/** Longer descriptions are cut: a description may quote what the caller sent (a scope). */
const MAX_DESCRIPTION_LENGTH = 300;

/**
 * RFC 6749 §5.2: `error_description` is printable ASCII without `"` and `\` (%x20-21 /
 * %x23-5B / %x5D-7E). A description quoting what the caller sent (a requested scope, a
 * parameter's name) gets `?` for any other character and is cut to a bounded length.
 */
export function oauthDescription(text: string): string {
  const printable = text.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?');
  return printable.length <= MAX_DESCRIPTION_LENGTH
    ? printable
    : `${printable.slice(0, MAX_DESCRIPTION_LENGTH - 3)}...`;
}
