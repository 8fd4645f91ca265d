import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CONSUMER_TOPOLOGY, consumerQueue } from '@comanda/contracts';
import { freePort } from '@comanda/platform';
import {
  createTestBroker,
  createTestDatabase,
  disposeTestBroker,
  waitFor,
  type TestBroker,
  type TestDatabase,
} from '@comanda/testing';
import type { Deployment, DeploymentProcess, StartOptions } from './deployment';
import { delay, EXIT_WITH_RUNNER, ROOT, tail } from './processes';

/** A service as tools/manifests/services.mjs declares it (compose and Kubernetes come from it). */
interface DeployedService {
  name: string;
  database?: boolean;
  bus?: boolean;
  routed?: boolean;
  http?: boolean;
  profile?: string;
  environment?: Record<string, string>;
}

/** One service process started from the build, with a way to wait for its end. */
export interface ServiceProcess extends DeploymentProcess {
  exited: Promise<number | NodeJS.Signals | null>;
  kill(signal: NodeJS.Signals): void;
}

/** What the build and the manifests say distributed mode runs: the services compose starts by default. */
function deployedServices(): DeployedService[] {
  const manifest = pathToFileURL(join(ROOT, 'tools/manifests/services.mjs')).href;
  const read = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { DEPLOYED_SERVICES } = await import(${JSON.stringify(manifest)});
       process.stdout.write(JSON.stringify(DEPLOYED_SERVICES));`,
    ],
    { encoding: 'utf8' },
  );
  if (read.status !== 0) throw new Error(`reading the deployed services: ${read.stderr}`);
  return (JSON.parse(read.stdout) as DeployedService[]).filter(
    (service) => service.http !== false && service.profile === undefined,
  );
}

/** `config-store` → `CONFIG_STORE_URL`, as the gateway and the manifests name it. */
function urlVariable(name: string): string {
  return `${name.replace(/-/g, '_').toUpperCase()}_URL`;
}

/** Compose's `${NAME:-default}` as compose resolves it with NAME unset. */
function composeDefault(value: string): string {
  return value.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');
}

interface DistributedState {
  database: Pick<TestDatabase, 'url' | 'drop'>;
  broker: TestBroker;
  build: string;
  authKeys: { AUTH_KEY_ENCRYPTION_KEY: string; AUTH_SECRET_PEPPER: string };
  /** Seals merchants' and webhooks' secrets in payments, notifications and orders. */
  secretsKey: string;
  /** The settings a service of the deployment runs with. */
  envOf(name: string): Record<string, string>;
}

const states = new WeakMap<Deployment, DistributedState>();

/** The services that keep secrets sealed under COMANDA_SECRETS_KEY (ADRs 0033 and 0040). */
const SEALING_SERVICES = new Set(['orders', 'payments', 'notifications']);

/**
 * Distributed mode as compose runs it: each service of tools/manifests/services.mjs is its
 * own process, started from the compiled build (`node <build>/apps/<name>/main.js`, what
 * `npm run build` makes), on one PostgreSQL and one RabbitMQ, every service on its own port
 * with the others' URLs, the gateway the public port. Auth starts first (the others verify
 * tokens with its keys), the gateway last.
 */
export async function startDistributedDeployment(
  label: string,
  options: StartOptions = {},
): Promise<Deployment> {
  const previous = options.reuse ? states.get(options.reuse) : undefined;
  if (options.reuse && !previous) throw new Error('reuse needs a distributed deployment');
  let build = previous?.build ?? '';
  if (!previous) {
    mkdirSync(join(ROOT, 'tmp'), { recursive: true });
    build = mkdtempSync(join(ROOT, 'tmp', `security-${label}-`));
    // tools/build.js writes inside the checkout (it resolves node_modules from there).
    execFileSync(process.execPath, ['tools/build.js', `--out=${build.slice(ROOT.length + 1)}`], {
      cwd: ROOT,
      stdio: 'ignore',
    });
  }
  const database = previous?.database ?? (await createTestDatabase(`sec_${label}`));
  const broker = previous?.broker ?? (await createTestBroker(`sec-${label}`));
  const admin = options.reuse?.admin ?? {
    clientId: 'platform-admin',
    clientSecret: randomBytes(32).toString('base64url'),
  };
  const authKeys = previous?.authKeys ?? {
    AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
    AUTH_SECRET_PEPPER: randomBytes(32).toString('base64url'),
  };
  const secretsKey = previous?.secretsKey ?? randomBytes(32).toString('base64url');
  const dataDir = options.reuse?.dataDir ?? mkdtempSync(join(tmpdir(), 'comanda-sec-'));

  const services = deployedServices();
  const ports = new Map<string, number>();
  for (const service of services) ports.set(service.name, await freePort());
  const gatewayPort = ports.get('gateway') ?? 0;
  const baseUrl = `http://127.0.0.1:${gatewayPort}`;
  const urls = Object.fromEntries(
    services
      .filter((service) => service.routed !== false)
      .map((service) => [urlVariable(service.name), `http://127.0.0.1:${ports.get(service.name)}`]),
  );

  const envOf = (service: DeployedService): Record<string, string> => {
    const hasDatabase = service.database !== false;
    const bus = service.bus ?? hasDatabase;
    return {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      COMANDA_ENVIRONMENT: 'test',
      COMANDA_PUBLIC_URL: baseUrl,
      COMANDA_DATA_DIR: dataDir,
      ...(hasDatabase ? { DATABASE_URL: database.url } : {}),
      ...(bus
        ? {
            AMQP_URL: broker.url,
            AMQP_EXCHANGE: broker.exchange,
            AMQP_QUEUE_PREFIX: broker.queuePrefix,
          }
        : {}),
      ...urls,
      ...(service.name === 'auth'
        ? {
            COMANDA_ADMIN_CLIENT_ID: admin.clientId,
            COMANDA_ADMIN_CLIENT_SECRET: admin.clientSecret,
            ...authKeys,
          }
        : {}),
      ...(SEALING_SERVICES.has(service.name) ? { COMANDA_SECRETS_KEY: secretsKey } : {}),
      LOG_LEVEL: 'warn',
      // Six pools against one PostgreSQL that other suites share (100 connections).
      DB_POOL_SIZE: '3',
      OUTBOX_POLL_MS: '200',
      TIMER_POLL_MS: '200',
      SHUTDOWN_TIMEOUT_MS: '10000',
      ...Object.fromEntries(
        Object.entries(service.environment ?? {})
          // `${NAME:?...}`: a value compose requires from the operator, given above.
          .filter(([, value]) => !/^\$\{[A-Z0-9_]+:\?/.test(value))
          .map(([key, value]) => [key, composeDefault(value)]),
      ),
      ...options.env,
      PORT: String(ports.get(service.name)),
    };
  };

  const running: ServiceProcess[] = [];
  const stop = async () => {
    // The gateway first (no new requests), auth last (the others verify with its keys).
    const order = [
      ...running.filter((service) => service.name === 'gateway'),
      ...running.filter((service) => service.name !== 'gateway' && service.name !== 'auth'),
      ...running.filter((service) => service.name === 'auth'),
    ];
    for (const service of order) service.kill('SIGTERM');
    await Promise.all(
      order.map((service) =>
        Promise.race([service.exited, delay(20_000).then(() => service.kill('SIGKILL'))]),
      ),
    );
    await Promise.all(order.map((service) => service.exited));
  };
  let closed = false;
  const close = async () => {
    await stop();
    if (closed) return;
    closed = true;
    await database.drop();
    await disposeTestBroker(
      broker,
      CONSUMER_TOPOLOGY.map((entry) => `${broker.queuePrefix}${consumerQueue(entry)}`),
    ).catch(() => undefined);
    rmSync(build, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  };

  const startAndWait = async (names: string[]) => {
    const started = names.map((name) => {
      const service = services.find((candidate) => candidate.name === name) as DeployedService;
      const process_ = startServiceProcess(build, name, ports.get(name) ?? 0, envOf(service));
      running.push(process_);
      return process_;
    });
    await Promise.all(started.map((service) => ready(service)));
  };
  try {
    await startAndWait(['auth']);
    await startAndWait(
      services
        .map((service) => service.name)
        .filter((name) => name !== 'auth' && name !== 'gateway'),
    );
    await startAndWait(['gateway']);
  } catch (error) {
    await close();
    throw error;
  }

  const processes = [...running];
  const front = processes.find((service) => service.name === 'gateway') as ServiceProcess;
  const deployment: Deployment = {
    target: 'distributed',
    baseUrl,
    port: gatewayPort,
    admin,
    dataDir,
    databaseUrl: database.url,
    front,
    processes,
    internal: processes.filter((service) => service.name !== 'gateway'),
    alive: () => processes.every((service) => service.alive()),
    output: () => processes.map((service) => `--- ${service.name}\n${service.output()}`).join('\n'),
    stop,
    close,
  };
  const envByName = (name: string) =>
    envOf(services.find((service) => service.name === name) ?? { name });
  states.set(deployment, { database, broker, build, authKeys, secretsKey, envOf: envByName });
  return deployment;
}

/**
 * One more process of a service of a distributed deployment, on a free port, with the
 * settings the deployment gives it changed: to see how it starts, or refuses to, without one.
 */
export function runBuiltService(
  deployment: Deployment,
  name: string,
  change: { env?: Record<string, string>; without?: string[] },
): ServiceProcess {
  const state = states.get(deployment);
  if (!state) throw new Error('runBuiltService needs a distributed deployment');
  const env = { ...state.envOf(name), ...change.env };
  for (const variable of change.without ?? []) delete env[variable];
  return startServiceProcess(state.build, name, 0, env);
}

function startServiceProcess(
  build: string,
  name: string,
  port: number,
  env: Record<string, string>,
): ServiceProcess {
  const output = tail();
  const child = spawn(
    process.execPath,
    ['-r', EXIT_WITH_RUNNER, join(build, 'apps', name, 'main.js')],
    {
      cwd: ROOT,
      env: { ...env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', output.append);
  child.stderr?.on('data', output.append);
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    alive,
    output: output.text,
    exited,
    kill: (signal) => {
      if (alive()) child.kill(signal);
    },
  };
}

/**
 * Waits for the service's readiness; when it does not come, the error carries the last answer
 * (or why there was none) and the service's own output, so a slow start on a busy machine
 * can be told from a dependency the service waits on.
 */
async function ready(service: ServiceProcess): Promise<void> {
  try {
    await waitFor(
      `${service.name} to be ready`,
      async () => {
        if (!service.alive()) throw new Error(`${service.name} exited`);
        const response = await fetch(`${service.url}/health/ready`);
        if (response.status === 200) return true;
        throw new Error(`/health/ready answered ${response.status}: ${await response.text()}`);
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n--- ${service.name} output:\n${service.output()}`);
  }
}
