import { ApiClient } from '../api/api-client';
import { CliError } from '../cli-error';
import type { CliEnv } from '../config/cli-env';
import { TokenCache, type CachedToken } from '../config/token-cache';
import { requestToken, type ClientCredentials } from './token-request';

/**
 * The CLI's login state: a cached token while it is valid, renewed from COMANDA_CLIENT_ID /
 * COMANDA_CLIENT_SECRET when those are set, else the user is asked to log in again.
 */
export class Session {
  readonly cache: TokenCache;

  constructor(private readonly env: CliEnv) {
    this.cache = new TokenCache(env.configDir);
  }

  async login(
    credentials: ClientCredentials,
    profile?: string,
    now = Date.now(),
  ): Promise<{ token: CachedToken; profile: string }> {
    const response = await requestToken(credentials);
    const token: CachedToken = {
      url: credentials.url,
      tenant: credentials.tenant,
      clientId: credentials.clientId,
      scope: response.scope ?? credentials.scope ?? '',
      accessToken: response.access_token,
      expiresAt: now + response.expires_in * 1000,
      obtainedAt: now,
    };
    return { token, profile: await this.cache.write(token, profile) };
  }

  /** An API client with a valid token, for commands that call the API. */
  async client(): Promise<ApiClient> {
    const profile = this.env.profile;
    const cached = await this.cache.usable(Date.now(), profile);
    if (cached) return new ApiClient(cached.url, cached.accessToken);

    const previous = await this.cache.read(profile);
    const url = this.env.url ?? previous?.url;
    const tenant = this.env.tenant ?? previous?.tenant;
    const clientId = this.env.clientId ?? previous?.clientId;
    const clientSecret = this.env.clientSecret;
    if (url && tenant && clientId && clientSecret) {
      const { token: renewed } = await this.login(
        { url, tenant, clientId, clientSecret, scope: previous?.scope || undefined },
        profile,
      );
      return new ApiClient(renewed.url, renewed.accessToken);
    }
    throw new CliError(
      previous
        ? 'The cached token has expired. Run `comanda login` again (or set COMANDA_CLIENT_SECRET to renew it automatically).'
        : profile
          ? `No token for the profile "${profile}". Run \`comanda login --profile ${profile} ...\` first.`
          : 'Not logged in. Run `comanda login --credentials-file <file>` or `comanda login --tenant <tenant> --client-id <id>` first.',
    );
  }
}
