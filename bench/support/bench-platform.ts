/**
 * What `npm run bench` and `npm run bench:ab` do to a freshly started platform before they
 * load it: the environment it starts with, then a tenant, a client with `configs:read` and
 * `configs:write` and one config to read, all through the gateway.
 */
import { provisionClient, requestToken } from '../../apps/platform-e2e/src/support/clients';
import type { TestPlatform } from '../../apps/platform-e2e/src/support/platform';
import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '@comanda/testing';
import { startChild, stopChild, type Started } from './children';
import type { LoadOptions } from './load';

export const BENCH_TENANT = 'bench';
export const CONFIG_PATH = `/entities/${BENCH_TENANT}/configs`;

export type PathLoad = Omit<LoadOptions, 'durationSeconds' | 'connections'>;

export interface AdminCredentials {
  clientId: string;
  clientSecret: string;
}

/** The platform's environment: `npm start`'s, on `databaseUrl`, with a known admin client. */
export function platformEnv(
  databaseUrl: string,
  admin: AdminCredentials,
): Record<string, string | undefined> {
  return {
    DATABASE_URL: databaseUrl,
    // As `npm start` runs it: its own in-process bus. An AMQP_URL of the caller's shell (CI
    // sets one for the tests) would have it declare its services' queues, unprefixed, on that
    // broker and leave them there after the run.
    AMQP_URL: undefined,
    COMANDA_ENVIRONMENT: 'test',
    COMANDA_ADMIN_CLIENT_ID: admin.clientId,
    COMANDA_ADMIN_CLIENT_SECRET: admin.clientSecret,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    // The per-client rate limit would stop the load itself: lift it for the measurement.
    GATEWAY_RATE_LIMIT_MAX: '100000000',
  };
}

/** The three measured paths of a provisioned platform. */
export interface BenchPaths {
  /** The authenticated config read through the gateway. */
  gateway: PathLoad;
  /** The same read straight to the config store's own port. */
  direct: PathLoad;
  /** Client credentials through the gateway. */
  token: PathLoad;
}

/** Provisions the tenant, the client and the config; checks the token endpoint answers 200. */
export async function provisionBench(
  platform: Started,
  admin: AdminCredentials,
): Promise<BenchPaths> {
  // provisionClient only calls the gateway with the admin client's credentials.
  const handle = { baseUrl: platform.url, admin } as unknown as TestPlatform;
  const client = await provisionClient(handle, {
    tenantId: BENCH_TENANT,
    permissions: ['configs:read', 'configs:write'],
  });
  const written = await fetch(`${platform.url}${CONFIG_PATH}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await client.token('configs:write')}`,
      'x-api-version': '0',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ id: 'bench', values: { currency: 'CHF', tables: 12 } }),
  });
  if (written.status !== 200) throw new Error(`writing the config: ${written.status}`);
  const probe = await requestToken(platform.url, BENCH_TENANT, client);
  if (probe.status !== 200) throw new Error(`token endpoint: ${probe.status}`);
  const headers = {
    authorization: `Bearer ${await client.token('configs:read')}`,
    'x-api-version': '0',
  };
  return {
    gateway: { url: `${platform.url}${CONFIG_PATH}`, headers, expectStatus: 200 },
    direct: {
      url: `${platform.services['config-store']}${CONFIG_PATH}`,
      headers,
      expectStatus: 200,
    },
    token: {
      url: `${platform.url}/auth/${BENCH_TENANT}/connect/token`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      }).toString(),
      expectStatus: 200,
    },
  };
}

/** A bare baseline and a provisioned platform, on the same fresh database. */
export interface BenchServers {
  /** bench/support/baseline-server.ts: Fastify + pg, no framework. */
  baseline: Started;
  /** The platform as `npm start` runs it (bench/support/platform-server.ts). */
  platform: Started;
  paths: BenchPaths;
  /** The database both run on. */
  databaseUrl: string;
}

/**
 * Runs `work` against the baseline and the platform, started on a database of their own
 * (dropped after), the platform provisioned; both are stopped after, whatever happened.
 */
export async function withBenchServers<T>(work: (servers: BenchServers) => Promise<T>): Promise<T> {
  const database = await createTestDatabase('bench');
  const admin = { clientId: 'platform-admin', clientSecret: randomBytes(32).toString('base64url') };
  let baseline: Started | undefined;
  let platform: Started | undefined;
  try {
    baseline = await startChild('baseline-server.ts', { DATABASE_URL: database.url });
    platform = await startChild('platform-server.ts', platformEnv(database.url, admin));
    const paths = await provisionBench(platform, admin);
    return await work({ baseline, platform, paths, databaseUrl: database.url });
  } finally {
    await stopChild(platform?.child);
    await stopChild(baseline?.child);
    await database.drop();
  }
}
