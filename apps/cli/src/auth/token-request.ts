import { sendForText } from '../api/api-client';
import { ApiError } from '../api/api-error';

export interface ClientCredentials {
  url: string;
  tenant: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated; absent asks for everything the client was granted. */
  scope?: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope?: string;
}

/** OAuth 2.0 client credentials at `POST {url}/auth/{tenant}/connect/token`. */
export async function requestToken(credentials: ClientCredentials): Promise<TokenResponse> {
  const base = credentials.url.endsWith('/') ? credentials.url : `${credentials.url}/`;
  const url = new URL(`auth/${encodeURIComponent(credentials.tenant)}/connect/token`, base);
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
  });
  if (credentials.scope) form.set('scope', credentials.scope);

  const text = await sendForText(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: form.toString(),
  });
  const token = JSON.parse(text) as TokenResponse;
  if (typeof token.access_token !== 'string' || typeof token.expires_in !== 'number') {
    throw new ApiError(
      200,
      'Unexpected token response',
      'access_token or expires_in is missing',
      'cli.bad_token_response',
      undefined,
    );
  }
  return token;
}
