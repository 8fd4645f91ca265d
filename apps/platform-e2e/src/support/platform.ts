import { randomBytes } from 'node:crypto';
import { PLATFORM_SERVICES, startPlatform, type RunningPlatform } from '@comanda/platform';
import { createTestDatabase, type TestBroker, type TestDatabase } from '@comanda/testing';

export interface TestPlatform extends RunningPlatform {
  admin: { clientId: string; clientSecret: string };
}

/** A platform's own database and admin: pass them again to restart it on the same state. */
export interface PlatformState {
  database: TestDatabase;
  admin: { clientId: string; clientSecret: string };
}

export function newPlatformState(database: TestDatabase): PlatformState {
  return {
    database,
    admin: { clientId: 'platform-admin', clientSecret: randomBytes(32).toString('base64url') },
  };
}

/**
 * The whole platform as `npm start` runs it, on its own fresh database and a free port, with
 * the in-process bus, or RabbitMQ when a test broker is given. `close()` stops it and drops
 * the database, unless the caller gave the state (then the caller drops it).
 */
export async function startTestPlatform(
  label: string,
  options: TestPlatformOptions = {},
): Promise<TestPlatform> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(label, options);
    } catch (error) {
      // The free port picked for the gateway (its URL is known before it listens) was taken
      // by a suite running beside this one in the meantime: start again on another.
      const taken = error instanceof Error && error.message.includes('EADDRINUSE');
      if (!taken || attempt >= 3) throw error;
    }
  }
}

export interface TestPlatformOptions {
  env?: Record<string, string>;
  broker?: TestBroker;
  state?: PlatformState;
  /** Leave services out (a test that plays their part on the bus itself). */
  without?: string[];
}

async function startOnce(label: string, options: TestPlatformOptions): Promise<TestPlatform> {
  const owned = options.state === undefined;
  const { database, admin } = options.state ?? newPlatformState(await createTestDatabase(label));
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    COMANDA_ENVIRONMENT: 'test',
    COMANDA_ADMIN_CLIENT_ID: admin.clientId,
    COMANDA_ADMIN_CLIENT_SECRET: admin.clientSecret,
    LOG_LEVEL: 'warn',
    // Suites run side by side against one PostgreSQL (100 connections): small pools.
    DB_POOL_SIZE: '4',
    OUTBOX_POLL_MS: '200',
    TIMER_POLL_MS: '200',
    ...(options.broker
      ? {
          AMQP_URL: options.broker.url,
          AMQP_EXCHANGE: options.broker.exchange,
          AMQP_QUEUE_PREFIX: options.broker.queuePrefix,
        }
      : {}),
    ...options.env,
  };
  let platform: RunningPlatform;
  try {
    const services = PLATFORM_SERVICES.filter(
      (service) => !(options.without ?? []).includes(service.name),
    );
    platform = await startPlatform({ port: 0, env: Object.freeze(env), services });
  } catch (error) {
    if (owned) await database.drop();
    throw error;
  }
  const publicUrl = platform.baseUrl;
  return {
    ...platform,
    baseUrl: publicUrl,
    admin,
    close: async () => {
      await platform.close();
      if (owned) await database.drop();
    },
  };
}
