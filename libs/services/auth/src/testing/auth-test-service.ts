import { randomBytes } from 'node:crypto';
import { InProcessBus } from '@comanda/messaging';
import { startService, type RunningService } from '@comanda/runtime';
import { createTestDatabase, type TestDatabase } from '@comanda/testing';
import { authService } from '../auth.service-definition';

/** Made per test run, like every real secret: nothing to find in the repository. */
export const TEST_ADMIN = {
  clientId: 'test-admin',
  clientSecret: randomBytes(32).toString('base64url'),
};

/** Key material of this test run (the auth service refuses to start without it, in every environment). */
export const TEST_KEYS = {
  keyEncryptionKey: randomBytes(32).toString('base64url'),
  secretPepper: randomBytes(32).toString('base64url'),
};

export interface AuthTestService {
  url: string;
  databaseUrl: string;
  service: RunningService;
  /** Starts another auth service on the same database (a second replica or deployment). */
  startAnother(env: Record<string, string>): Promise<RunningService>;
  close(): Promise<void>;
}

/** The auth service alone, on a fresh database, as the runtime boots it. */
export async function startAuthTestService(
  label: string,
  env: Record<string, string> = {},
): Promise<AuthTestService> {
  const db: TestDatabase = await createTestDatabase(label);
  const bus = new InProcessBus();
  const baseEnv = {
    COMANDA_PUBLIC_URL: 'http://comanda.test',
    COMANDA_ENVIRONMENT: 'test',
    AUTH_KEY_ENCRYPTION_KEY: TEST_KEYS.keyEncryptionKey,
    AUTH_SECRET_PEPPER: TEST_KEYS.secretPepper,
    COMANDA_ADMIN_CLIENT_ID: TEST_ADMIN.clientId,
    COMANDA_ADMIN_CLIENT_SECRET: TEST_ADMIN.clientSecret,
    LOG_LEVEL: 'warn',
    ...env,
  };
  const others: RunningService[] = [];
  let service: RunningService;
  try {
    service = await startService(authService, {
      port: 0,
      host: '127.0.0.1',
      databaseUrl: db.url,
      bus,
      env: baseEnv,
    });
  } catch (error) {
    await db.drop();
    throw error;
  }
  return {
    url: service.url,
    databaseUrl: db.url,
    service,
    startAnother: async (extra) => {
      const another = await startService(authService, {
        port: 0,
        host: '127.0.0.1',
        databaseUrl: db.url,
        bus,
        env: { ...baseEnv, ...extra },
      });
      others.push(another);
      return another;
    },
    close: async () => {
      for (const other of others) await other.close();
      await service.close();
      await bus.close();
      await db.drop();
    },
  };
}
