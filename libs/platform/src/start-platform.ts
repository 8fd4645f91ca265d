import { Logger } from '@nestjs/common';
import { runInService } from '@comanda/context';
import type { ConsumerDeclaration } from '@comanda/contracts';
import { InProcessBus, RabbitMqBus, type MessageBus } from '@comanda/messaging';
import {
  checkServiceSettings,
  loadConfig,
  RuntimeConfig,
  startService,
  type RunningService,
  type RuntimeEnv,
  type ServiceDefinition,
} from '@comanda/runtime';
import { PartnerSandboxConfig, partnerSandboxService } from '@comanda/service-partner-sandbox';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres';
import { freePort } from './free-port';
import { withStandaloneKeyMaterial } from './key-material';
import { PLATFORM_SERVICES } from './services';

export interface PlatformOptions {
  /** Public port of the gateway; 0 picks a free one. */
  port: number;
  /** Environment snapshot (read once at boot). DATABASE_URL / AMQP_URL in it switch to external servers. */
  env: RuntimeEnv;
  /** Services to run; the gateway is started last, the auth service first. */
  services?: ServiceDefinition[];
  /** Every consumer on the bus (default `CONSUMER_TOPOLOGY`); tests bring their own. */
  topology?: readonly ConsumerDeclaration[];
}

export interface RunningPlatform {
  /** Public URL of the gateway. */
  baseUrl: string;
  port: number;
  services: ReadonlyMap<string, RunningService>;
  databaseUrl: string;
  close(): Promise<void>;
}

/** Environment variable naming a service's internal URL: `config-store` → `CONFIG_STORE_URL`. */
export function serviceUrlVariable(name: string): string {
  return `${name.replace(/-/g, '_').toUpperCase()}_URL`;
}

/**
 * Every service of the platform in one process: the runtime of standalone mode and of the
 * end-to-end tests. Each service still listens on its own (loopback) port, as in distributed
 * mode; the gateway hands a request to the service of this process on its own request and
 * response (ADR 0036), or, for a chunked body, over an in-process connection (ADR 0035).
 */
export async function startPlatform(options: PlatformOptions): Promise<RunningPlatform> {
  const logger = new Logger('platform');
  const port = options.port === 0 ? await freePort() : options.port;
  // Token issuers and notification URLs are built on the public URL: default it to where
  // the gateway really listens.
  const runtimeEnv = {
    COMANDA_PUBLIC_URL: `http://localhost:${port}`,
    ...options.env,
  };
  const config = loadConfig(RuntimeConfig, runtimeEnv);
  // No constant key: random auth key material, made once and kept in the data folder.
  const baseEnv = await withStandaloneKeyMaterial(config.COMANDA_DATA_DIR, runtimeEnv);
  const services = options.services ?? PLATFORM_SERVICES;
  // Every service's own settings, before PostgreSQL or the broker: one line for a bad value.
  const sandboxToo = options.env.COMANDA_PARTNER_SANDBOX === '1' ? [partnerSandboxService] : [];
  for (const definition of [...services, ...sandboxToo]) checkServiceSettings(definition, baseEnv);

  const embedded: EmbeddedPostgres | undefined = config.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres(config.COMANDA_DATA_DIR, logger);
  const databaseUrl = config.DATABASE_URL ?? (embedded as EmbeddedPostgres).url;
  // The shared connection's own lines (lost, reconnected) are the platform's, not those of
  // whichever service set up the process-wide logger last.
  const bus: MessageBus = config.AMQP_URL
    ? runInService(
        'platform',
        () =>
          new RabbitMqBus({
            url: config.AMQP_URL as string,
            exchange: config.AMQP_EXCHANGE,
            queuePrefix: config.AMQP_QUEUE_PREFIX,
            topologyRefreshMs: config.AMQP_TOPOLOGY_REFRESH_MS,
            connectionName: 'comanda-standalone',
          }),
      )
    : new InProcessBus();

  const running = new Map<string, RunningService>();
  const inProcess = bus instanceof InProcessBus;
  const stopAll = async () => {
    const services = [...running.values()].reverse();
    const front = services.filter((service) => service.name === 'gateway');
    const inner = services.filter((service) => service.name !== 'gateway');
    // No new requests from outside, then every outbox is flushed while all consumers still
    // run: on the in-process bus a publish settles only once its consumers handled it.
    for (const service of front) await service.close();
    await withDeadline(
      Promise.all(inner.map((service) => service.drainOutbox())),
      config.SHUTDOWN_TIMEOUT_MS / 2,
    ).catch((error: unknown) => logger.warn(`outbox not fully flushed: ${String(error)}`));
    // In process, closing the bus first settles what is still unsettled as "not published":
    // those rows stay in the outbox for the next start instead of holding the stop open.
    if (inProcess) await bus.close();
    for (const service of inner) await service.close();
    if (!inProcess) await bus.close();
    await embedded?.stop();
  };

  try {
    const gateway = services.find((service) => service.name === 'gateway');
    const auth = services.find((service) => service.name === 'auth');
    const others = services.filter((service) => service !== gateway && service !== auth);
    let env: Record<string, string | undefined> = { ...baseEnv };
    // Only the gateway takes traffic from outside: the services behind it listen on loopback.
    const start = async (definition: ServiceDefinition, listenPort = 0) => {
      const host = definition.name === 'gateway' ? config.HOST : '127.0.0.1';
      const service = await startService(definition, {
        port: listenPort,
        host,
        databaseUrl,
        bus,
        env,
        topology: options.topology,
        // Started below, once every service has subscribed: an outbox left over from the
        // last stop is published only when all its consumers listen.
        deferRelay: true,
      });
      running.set(definition.name, service);
      return service;
    };

    // Services verify tokens against the auth service's JWKS, so it starts first.
    if (auth) {
      const service = await start(auth);
      env = { ...env, [serviceUrlVariable('auth')]: service.url };
    }
    for (const definition of others) {
      const service = await start(definition);
      env = { ...env, [serviceUrlVariable(definition.name)]: service.url };
    }
    for (const service of running.values()) service.startRelay();
    if (gateway) await start(gateway, port);
    // COMANDA_PARTNER_SANDBOX=1: the reference payment partner beside it, on its own port.
    if (options.env.COMANDA_PARTNER_SANDBOX === '1') {
      const sandbox = await start(
        partnerSandboxService,
        loadConfig(PartnerSandboxConfig, baseEnv).PARTNER_SANDBOX_PORT,
      );
      logger.log(`partner sandbox: ${sandbox.url}/payments (see docs/payment-partners.md)`);
    }
    return {
      baseUrl: `http://127.0.0.1:${port}`,
      port,
      services: running,
      databaseUrl,
      close: stopAll,
    };
  } catch (error) {
    await stopAll().catch((stopError: unknown) =>
      logger.error(`cleanup after a failed start: ${String(stopError)}`),
    );
    throw error;
  }
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`still busy after ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
