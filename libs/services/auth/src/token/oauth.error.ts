/** The error codes of RFC 6749 §5.2. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope';

/**
 * A token endpoint error: answered as RFC 6749 §5.2 JSON (`error`, `error_description`)
 * carrying the problem fields as well, by OAuthErrorFilter.
 */
export class OAuthError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    options: { basicAuthUsed?: boolean } = {},
  ) {
    super(description);
    this.name = 'OAuthError';
    this.status = error === 'invalid_client' ? 401 : 400;
    this.headers =
      error === 'invalid_client' && options.basicAuthUsed
        ? { 'WWW-Authenticate': 'Basic realm="comanda"' }
        : {};
  }
}
