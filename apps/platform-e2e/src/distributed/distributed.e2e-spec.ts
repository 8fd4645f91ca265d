import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, PLATFORM_SERVICES, serviceUrlVariable } from '@comanda/platform';
import {
  createTestBroker,
  createTestDatabase,
  waitFor,
  type TestBroker,
  type TestDatabase,
} from '@comanda/testing';
import { integrator } from '../config-store/config-store-api';
import {
  deleteOrdersQueues,
  ordersTenant,
  placeBasket,
  placedReport,
  seedStore,
} from '../orders/orders-api';
import { freshPlugin, pluginTeam } from '../plugin-registry/plugin-registry-api';
import { isReady, ROOT } from '../standalone/standalone-process';
import type { TestPlatform } from '../support/platform';

interface ServiceProcess {
  name: string;
  port: number;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | NodeJS.Signals | null>;
}

const BUILD = join('tmp', `distributed-e2e-${process.pid}`);

/**
 * Distributed mode as users run it: every service of the platform (the list standalone mode
 * composes) is its own process, started from its compiled entry `apps/<name>/main.js`,
 * against PostgreSQL and RabbitMQ; the gateway is the only way in. A smoke flow runs through
 * it, then each process gets SIGTERM and must stop cleanly with no error logged.
 */
describe('distributed mode: one process per service', () => {
  const admin = { clientId: 'platform-admin', clientSecret: randomBytes(32).toString('base64url') };
  const processes: ServiceProcess[] = [];
  let database: TestDatabase;
  let broker: TestBroker;
  let gatewayUrl: string;

  function start(name: string, port: number, env: Record<string, string>): ServiceProcess {
    let output = '';
    const child = spawn(process.execPath, [join(BUILD, 'apps', name, 'main.js')], {
      cwd: ROOT,
      // Every service is a process with its own pool against one PostgreSQL: small pools.
      env: { PATH: process.env.PATH ?? '', DB_POOL_SIZE: '4', ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | NodeJS.Signals | null>((resolveExit) =>
      child.once('exit', (code, signal) => resolveExit(code ?? signal)),
    );
    const started = { name, port, child, output: () => output, exited };
    processes.push(started);
    return started;
  }

  async function ready(service: ServiceProcess): Promise<void> {
    await waitFor(
      `${service.name} to be ready`,
      async () => {
        if (service.child.exitCode !== null) {
          throw new Error(`${service.name} exited:\n${service.output()}`);
        }
        return isReady(service.port);
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  }

  beforeAll(async () => {
    execFileSync(process.execPath, ['tools/build.js', `--out=${BUILD}`], { cwd: ROOT });
    database = await createTestDatabase('distributed');
    broker = await createTestBroker('distributed');
    const gatewayPort = await freePort();
    gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    let env: Record<string, string> = {
      DATABASE_URL: database.url,
      AMQP_URL: broker.url,
      AMQP_EXCHANGE: broker.exchange,
      AMQP_QUEUE_PREFIX: broker.queuePrefix,
      HOST: '127.0.0.1',
      COMANDA_ENVIRONMENT: 'test',
      COMANDA_PUBLIC_URL: gatewayUrl,
      COMANDA_ADMIN_CLIENT_ID: admin.clientId,
      COMANDA_ADMIN_CLIENT_SECRET: admin.clientSecret,
      // Outside standalone, auth refuses to start without its key material (docs/security.md).
      AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
      AUTH_SECRET_PEPPER: randomBytes(32).toString('base64url'),
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      OUTBOX_POLL_MS: '200',
      TIMER_POLL_MS: '200',
      SHUTDOWN_TIMEOUT_MS: '10000',
    };
    // Auth first (the others verify tokens with its keys), the gateway last (it forwards to
    // all of them); the rest start side by side.
    const names = PLATFORM_SERVICES.map((service) => service.name);
    const auth = start('auth', await freePort(), env);
    await ready(auth);
    env = { ...env, [serviceUrlVariable('auth')]: `http://127.0.0.1:${auth.port}` };
    const others: ServiceProcess[] = [];
    for (const name of names.filter((name) => name !== 'auth' && name !== 'gateway')) {
      others.push(start(name, await freePort(), env));
    }
    for (const service of others) {
      await ready(service);
      env = { ...env, [serviceUrlVariable(service.name)]: `http://127.0.0.1:${service.port}` };
    }
    await ready(start('gateway', gatewayPort, env));
  }, 240_000);

  afterAll(async () => {
    for (const service of processes) {
      if (service.child.exitCode === null && service.child.signalCode === null) {
        service.child.kill('SIGKILL');
      }
      await service.exited;
    }
    if (broker) await deleteOrdersQueues(broker);
    await database?.drop();
    rmSync(join(ROOT, BUILD), { recursive: true, force: true });
  });

  it('runs every service of the platform as its own process', () => {
    expect(processes.map((service) => service.name).sort()).toEqual(
      PLATFORM_SERVICES.map((service) => service.name).sort(),
    );
  });

  it('serves a token, a config written and read, and a plugin upload through the gateway', async () => {
    const platform = { baseUrl: gatewayUrl, admin } as unknown as TestPlatform;
    const tenantId = `dist-${randomBytes(3).toString('hex')}`;

    const alice = await integrator(platform, tenantId);
    const written = await alice.call('POST', '/entities/main-street/configs', {
      body: { id: 'pos', values: { taxRate: 7 } },
    });
    expect(written.status).toBe(200);
    const read = await alice.call('GET', '/entities/main-street/configs');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: 'pos', values: { taxRate: 7 } });

    const team = await pluginTeam(platform, tenantId);
    const name = freshPlugin('distributed');
    const code = 'export default async function plugin(context) { context.render("hi"); }\n';
    const uploaded = await team.uploadCode(name, '1.0.0', code);
    expect(uploaded.status).toBeLessThan(300);
    const served = await team.code(name, '1.0.0');
    expect(served.status).toBe(200);
    expect(served.bytes.toString('utf8')).toBe(code);
  }, 60_000);

  it('places an order: catalogue, basket, checkout, then the POS callbacks', async () => {
    const platform = { baseUrl: gatewayUrl, admin } as unknown as TestPlatform;
    const tenant = await ordersTenant(platform, `dist-o-${randomBytes(3).toString('hex')}`);
    const storeId = await seedStore(tenant);
    const { orderId, status } = await placeBasket(tenant, storeId);
    expect(status).toBe('ready');
    const start = await tenant.as(
      ['orders:placement'],
      'POST',
      `/orders/${orderId}/place-order-session/start`,
      { placeOrderSessionId: randomUUID() },
    );
    expect(start.status).toBe(200);
    const placed = await tenant.as(
      ['orders:placement'],
      'POST',
      `/orders/${orderId}/pos/placed`,
      placedReport({ posOrderId: 'pos-1' }),
    );
    expect(placed.status).toBe(200);
    const read = await tenant.as<{ status: string }>(['orders:read'], 'GET', `/orders/${orderId}`);
    expect(read.json.status).toBe('placed');
  }, 60_000);

  it('stops every process on SIGTERM, gateway first, with exit code 0 and no error logged', async () => {
    const order = [
      ...processes.filter((service) => service.name === 'gateway'),
      ...processes.filter((service) => service.name !== 'gateway' && service.name !== 'auth'),
      ...processes.filter((service) => service.name === 'auth'),
    ];
    for (const service of order) {
      service.child.kill('SIGTERM');
      expect({ name: service.name, exit: await service.exited }).toEqual({
        name: service.name,
        exit: 0,
      });
      const errors = service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; service?: string; msg: string })
        .filter((line) => line.level >= 50);
      expect({ name: service.name, errors }).toEqual({ name: service.name, errors: [] });
      expect(service.output()).toContain('stopped cleanly');
    }
  }, 120_000);
});
