import { randomBytes } from 'node:crypto';
import { startPlatform, type RunningPlatform } from '@comanda/platform';
import { createTestDatabase, type TestBroker } from '@comanda/testing';

export interface TestPlatform extends RunningPlatform {
  admin: { clientId: string; clientSecret: string };
}

/**
 * The whole platform as `npm start` runs it, on its own fresh database and a free port, with
 * the in-process bus, or RabbitMQ when a test broker is given. `close()` stops it and drops
 * the database.
 */
export async function startTestPlatform(
  label: string,
  options: { env?: Record<string, string>; broker?: TestBroker } = {},
): Promise<TestPlatform> {
  const database = await createTestDatabase(label);
  const admin = { clientId: 'platform-admin', clientSecret: randomBytes(32).toString('base64url') };
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    COMANDA_ENVIRONMENT: 'test',
    COMANDA_ADMIN_CLIENT_ID: admin.clientId,
    COMANDA_ADMIN_CLIENT_SECRET: admin.clientSecret,
    LOG_LEVEL: 'warn',
    OUTBOX_POLL_MS: '200',
    TIMER_POLL_MS: '200',
    ...(options.broker
      ? { AMQP_URL: options.broker.url, AMQP_EXCHANGE: options.broker.exchange }
      : {}),
    ...options.env,
  };
  let platform: RunningPlatform;
  try {
    platform = await startPlatform({ port: 0, env: Object.freeze(env) });
  } catch (error) {
    await database.drop();
    throw error;
  }
  const publicUrl = platform.baseUrl;
  return {
    ...platform,
    baseUrl: publicUrl,
    admin,
    close: async () => {
      await platform.close();
      await database.drop();
    },
  };
}
