import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { signBody } from '@comanda/outbound';
import { freePort, PLATFORM_SERVICES, serviceUrlVariable } from '@comanda/platform';
import {
  createTestBroker,
  createTestDatabase,
  disposePlatformBroker,
  waitFor,
  type TestBroker,
  type TestDatabase,
} from '@comanda/testing';
import { integrator } from '../config-store/config-store-api';
import { ordersTenant, placeBasket, placedReport, seedStore } from '../orders/orders-api';
import { freshPlugin, pluginTeam } from '../plugin-registry/plugin-registry-api';
import { parseAllDocuments } from 'yaml';
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

/** What the Secret `comanda-secrets` holds on Kubernetes (k8s/README.md). */
const SECRET_KEYS = [
  'DATABASE_URL',
  'AMQP_URL',
  'COMANDA_ADMIN_CLIENT_SECRET',
  'AUTH_KEY_ENCRYPTION_KEY',
  'AUTH_SECRET_PEPPER',
  'COMANDA_SECRETS_KEY',
];

/** The keys of the Secret each Deployment of k8s/base gives its pods. */
function podSecretKeys(): Map<string, Set<string>> {
  const text = readFileSync(join(ROOT, 'k8s', 'base', 'services.yaml'), 'utf8');
  const keys = new Map<string, Set<string>>();
  for (const document of parseAllDocuments(text)) {
    const resource = document.toJS() as {
      kind?: string;
      metadata?: { name?: string };
      spec?: { template?: { spec?: { containers?: Array<{ env?: unknown[] }> } } };
    };
    if (resource.kind !== 'Deployment' || !resource.metadata?.name) continue;
    const env = (resource.spec?.template?.spec?.containers?.[0]?.env ?? []) as Array<{
      valueFrom?: { secretKeyRef?: { name: string; key: string } };
    }>;
    const fromSecret = env.flatMap(({ valueFrom }) =>
      valueFrom?.secretKeyRef?.name === 'comanda-secrets' ? [valueFrom.secretKeyRef.key] : [],
    );
    keys.set(resource.metadata.name, new Set(fromSecret));
  }
  return keys;
}
/** The partner sandbox signs with this for every merchant; Comanda's merchant gets it too. */
const SANDBOX_SECRET = randomBytes(24).toString('base64url');

interface PaymentRead {
  state: string;
  operations: Array<{ type: string; status: string }>;
}

/**
 * Distributed mode as users run it: every service of the platform (the list standalone mode
 * composes) is its own process, started from its compiled entry `apps/<name>/main.js`,
 * against PostgreSQL and RabbitMQ; the gateway is the only way in. The partner sandbox is a
 * process of its own on its own port, as `docker compose --profile sandbox` runs it. Smoke
 * flows run through it (a paid order among them), then each process gets SIGTERM and must
 * stop cleanly with no error logged.
 */
describe('distributed mode: one process per service', () => {
  const admin = { clientId: 'platform-admin', clientSecret: randomBytes(32).toString('base64url') };
  const processes: ServiceProcess[] = [];
  let database: TestDatabase;
  let broker: TestBroker;
  let gatewayUrl: string;
  let sandbox: ServiceProcess;

  const secretsOfPod = podSecretKeys();

  function start(name: string, port: number, env: Record<string, string>): ServiceProcess {
    let output = '';
    // As on Kubernetes: a service deployed there gets only the secrets its pods get.
    const granted = secretsOfPod.get(name);
    const own = Object.fromEntries(
      Object.entries(env).filter(
        ([key]) => !granted || !SECRET_KEYS.includes(key) || granted.has(key),
      ),
    );
    const child = spawn(process.execPath, [join(BUILD, 'apps', name, 'main.js')], {
      cwd: ROOT,
      // Every service is a process with its own pool against one PostgreSQL: small pools.
      env: { PATH: process.env.PATH ?? '', DB_POOL_SIZE: '4', ...own, PORT: String(port) },
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
      // Payments and notifications seal merchants' signing secrets with it (ADR 0033).
      COMANDA_SECRETS_KEY: randomBytes(32).toString('base64url'),
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
    // Needs neither database nor broker: it posts its events to the gateway, as a partner.
    sandbox = start('partner-sandbox', await freePort(), {
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '10000',
      PARTNER_SANDBOX_SIGNING_SECRET: SANDBOX_SECRET,
      PARTNER_SANDBOX_NOTIFICATIONS_URL: `${gatewayUrl}/notifications/merchants/{merchantId}`,
      PARTNER_SANDBOX_EVENT_DELAY_MS: '50',
    });
    others.push(sandbox);
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
    if (broker) await disposePlatformBroker(broker);
    await database?.drop();
    rmSync(join(ROOT, BUILD), { recursive: true, force: true });
  });

  it('runs every service of the platform, and the partner sandbox, as its own process', () => {
    expect(processes.map((service) => service.name).sort()).toEqual(
      [...PLATFORM_SERVICES.map((service) => service.name), 'partner-sandbox'].sort(),
    );
  });

  it('runs each service with only the secrets its Kubernetes pods get', () => {
    // The gateway reads no secret; auth its keys; the sealing services the secrets key.
    expect([...(secretsOfPod.get('gateway') ?? ['missing'])]).toEqual([]);
    expect(secretsOfPod.get('auth')).toEqual(
      new Set([
        'DATABASE_URL',
        'AMQP_URL',
        'AUTH_KEY_ENCRYPTION_KEY',
        'AUTH_SECRET_PEPPER',
        'COMANDA_ADMIN_CLIENT_SECRET',
        'AUTH_PREVIOUS_KEY_ENCRYPTION_KEY',
        'AUTH_PREVIOUS_SECRET_PEPPER',
      ]),
    );
    for (const name of ['config-store', 'plugin-registry']) {
      expect(secretsOfPod.get(name)).toEqual(new Set(['DATABASE_URL', 'AMQP_URL']));
    }
    for (const name of ['orders', 'notifications', 'payments']) {
      expect(secretsOfPod.get(name)?.has('COMANDA_SECRETS_KEY')).toBe(true);
      expect(secretsOfPod.get(name)?.has('AUTH_SECRET_PEPPER')).toBe(false);
    }
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

  it('logs a forwarded request in the gateway, naming the service, and in the service itself', async () => {
    const response = await fetch(`${gatewayUrl}/.well-known/jwks.json`, {
      headers: { 'x-request-id': 'dist-line-1' },
    });
    const lineIn = (name: string) =>
      processes
        .find((service) => service.name === name)
        ?.output()
        .split('\n')
        .find((line) => line.includes('"dist-line-1"') && line.includes('"request completed"'));
    const gatewayLine = await waitFor('the gateway line', () => lineIn('gateway'));
    const authLine = await waitFor('the auth line', () => lineIn('auth'));
    expect(JSON.parse(gatewayLine)).toMatchObject({
      service: 'gateway',
      upstream: 'auth',
      res: { statusCode: response.status },
    });
    expect(JSON.parse(authLine)).toMatchObject({
      service: 'auth',
      res: { statusCode: response.status },
    });
    expect(JSON.parse(authLine)).not.toHaveProperty('upstream');
    // Each line shows the headers its process received: the caller's, then the gateway's.
    expect(JSON.parse(gatewayLine).req.headers).not.toHaveProperty('x-forwarded-for');
    expect(JSON.parse(authLine).req.headers).toHaveProperty('x-forwarded-for');
  });

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

  it('takes a paid order through the gateway: checkout, registration, authorization, placement, capture with the sandbox', async () => {
    const platform = { baseUrl: gatewayUrl, admin } as unknown as TestPlatform;
    const tenant = await ordersTenant(platform, `dist-p-${randomBytes(3).toString('hex')}`);
    const merchantId = `dist-merchant-${randomBytes(3).toString('hex')}`;
    const merchant = await tenant.as(
      ['payments:admin'],
      'PUT',
      `/payments/merchants/${merchantId}`,
      {
        name: 'Distributed merchant',
        partnerUrl: `http://127.0.0.1:${sandbox.port}/payments`,
        signingSecret: SANDBOX_SECRET,
      },
    );
    expect(merchant.status).toBe(201);
    // Notifications learns the secret from payments' event over RabbitMQ. Until then a
    // partner's event answers 401 (and the sandbox, on a 4xx, gives up on it): wait until a
    // signed event reads as the merchant's, i.e. an incomplete one is refused for its body.
    await waitFor(
      'the notification receiver to know the merchant',
      async () => {
        const body = '{}';
        const response = await fetch(`${gatewayUrl}/notifications/merchants/${merchantId}/events`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'comanda-signature': signBody(SANDBOX_SECRET, body),
          },
          body,
        });
        return response.status === 400;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );

    const storeId = await seedStore(tenant, { paymentMerchantId: merchantId });
    const { orderId } = await placeBasket(tenant, storeId, {
      payment: { merchantId, paymentMethod: 'sandbox_success' },
    });
    const order = async () =>
      (
        await tenant.as<{ status: string; payments: Array<{ paymentId: string; status: string }> }>(
          ['orders:read'],
          'GET',
          `/orders/${orderId}`,
        )
      ).json;
    // Announced to the POS only after authorization_succeeded.
    await waitFor(
      `order ${orderId} ready for the POS`,
      async () => (await order()).status === 'ready',
      {
        timeoutMs: 30_000,
        intervalMs: 200,
      },
    );
    const session = await tenant.as(
      ['orders:placement'],
      'POST',
      `/orders/${orderId}/place-order-session/start`,
      { placeOrderSessionId: randomUUID() },
    );
    expect(session.status).toBe(200);
    const placed = await tenant.as(
      ['orders:placement'],
      'POST',
      `/orders/${orderId}/pos/placed`,
      placedReport({ posOrderId: 'pos-paid-1' }),
    );
    expect(placed.status).toBe(200);

    const shown = await waitFor(
      'the order to show its payment captured',
      async () => {
        const read = await order();
        return read.payments[0]?.status === 'captured' && read;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(shown.status).toBe('placed');
    expect(shown.payments).toHaveLength(1);
    const paymentId = shown.payments[0]?.paymentId as string;
    const payment = await tenant.as<PaymentRead>(['orders:read'], 'GET', `/payments/${paymentId}`);
    expect(payment.status).toBe(200);
    expect(payment.json.state).toBe('captured');
    expect(payment.json.operations.map((operation) => [operation.type, operation.status])).toEqual([
      ['registration', 'succeeded'],
      ['authorization', 'succeeded'],
      ['capture', 'succeeded'],
    ]);
    // The partner's own ledger agrees.
    const ledger = await fetch(
      `http://127.0.0.1:${sandbox.port}/sandbox/transactions/${paymentId}`,
    );
    expect(((await ledger.json()) as { state: string }).state).toBe('captured');
  }, 90_000);

  it('ends a second copy of a service on a taken port at once, before it touches database or broker', async () => {
    const running = processes.find((service) => service.name === 'config-store');
    const env = {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: database.url,
      AMQP_URL: broker.url,
      AMQP_EXCHANGE: broker.exchange,
      AMQP_QUEUE_PREFIX: broker.queuePrefix,
      HOST: '127.0.0.1',
      PORT: String(running?.port),
    };
    const copy = spawn(process.execPath, [join(BUILD, 'apps', 'config-store', 'main.js')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    copy.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    copy.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exit = await new Promise((resolveExit) => copy.once('exit', resolveExit));
    expect(exit).toBe(1);
    // One line, the refusal: no migration ran, no broker connection was opened first.
    expect(output.trim().split('\n')).toEqual([expect.stringContaining('EADDRINUSE')]);
  });

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
