/** The environment snapshot the runtime takes at boot (same shape as RuntimeEnv of @comanda/runtime). */
export type EnvSnapshot = Readonly<Record<string, string | undefined>>;

export type DeploymentEnvironment = 'test' | 'production';

export interface SecuritySettings {
  /** Public base URL of the platform; issuers are `${publicUrl}/auth/${tenantId}`. */
  publicUrl: string;
  /** Where this process reaches the auth service (JWKS); the public URL when unset. */
  authUrl: string;
  /** `aud` every token must carry. */
  audience: string;
  environment: DeploymentEnvironment;
  /**
   * JWKS fetches per minute per tenant at most: an unknown `kid` refetches the tenant's keys
   * once per `60 s / jwksRequestsPerMinute` (the cool-down) and is refused from memory otherwise.
   */
  jwksRequestsPerMinute: number;
}

export const DEFAULT_PUBLIC_URL = 'http://localhost:3000';
export const DEFAULT_AUDIENCE = 'comanda-api';

export function deploymentEnvironment(env: EnvSnapshot): DeploymentEnvironment {
  const value = env.COMANDA_ENVIRONMENT ?? 'test';
  if (value !== 'test' && value !== 'production') {
    throw new Error(`COMANDA_ENVIRONMENT must be "test" or "production", not "${value}"`);
  }
  return value;
}

export function securitySettingsFrom(env: EnvSnapshot): SecuritySettings {
  const publicUrl = trimSlash(env.COMANDA_PUBLIC_URL ?? DEFAULT_PUBLIC_URL);
  const perMinute = Number(env.JWKS_REQUESTS_PER_MINUTE ?? '10');
  if (!Number.isInteger(perMinute) || perMinute < 1) {
    throw new Error('JWKS_REQUESTS_PER_MINUTE must be a positive integer');
  }
  return {
    publicUrl,
    authUrl: trimSlash(env.AUTH_URL ?? publicUrl),
    audience: env.COMANDA_TOKEN_AUDIENCE ?? DEFAULT_AUDIENCE,
    environment: deploymentEnvironment(env),
    jwksRequestsPerMinute: perMinute,
  };
}

/** The `iss` of every token of a tenant, whichever host issued it. */
export function issuerOf(publicUrl: string, tenantId: string): string {
  return `${trimSlash(publicUrl)}/auth/${tenantId}`;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
