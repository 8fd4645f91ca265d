/** Who is calling, as proven by a verified access token. */
export interface Principal {
  /** The API client (`client_id` / `sub` of the token); also the publisher of what it creates. */
  clientId: string;
  /** `tid` of the token: every read and write of the request is scoped to it. */
  tenantId: string;
  environment: 'test' | 'production';
  /** Granted scopes of the token (`scope` claim). */
  scopes: ReadonlySet<string>;
  /** True when the token carries `personal-data:read`. */
  personalData: boolean;
  /** `jti` of the token. */
  tokenId: string;
}
