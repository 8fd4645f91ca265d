import { Logger } from '@nestjs/common';
import { RabbitMqBus } from '@comanda/messaging';
import { loadConfig, snapshotEnv } from './config/load-config';
import { installEarlyLogger } from './early-logger';
import { RuntimeConfig } from './config/runtime.config';
import type { ServiceDefinition } from './service-definition';
import { checkServiceSettings, startService } from './start-service';
import { ensurePortFree } from './port';
import { onShutdownSignal } from './shutdown';

/**
 * Entry point of a service run as its own process (distributed mode): its own Postgres
 * schema over DATABASE_URL, RabbitMQ over AMQP_URL, graceful stop on SIGTERM/SIGINT.
 */
export async function runServiceMain(definition: ServiceDefinition): Promise<void> {
  const env = snapshotEnv();
  installEarlyLogger(definition.name, env);
  const logger = new Logger(definition.name);
  let bus: RabbitMqBus | undefined;
  try {
    const config = loadConfig(RuntimeConfig, env);
    checkServiceSettings(definition, env);
    if (definition.database && !config.DATABASE_URL) {
      throw new Error('DATABASE_URL is required to run this service alone (or use npm start)');
    }
    if (definition.database && !config.AMQP_URL) {
      throw new Error('AMQP_URL is required to run this service alone (or use npm start)');
    }
    await ensurePortFree(config.PORT, config.HOST);
    // Only a service with a database publishes or consumes (its outbox and inbox are there):
    // the gateway opens no broker connection, even where AMQP_URL is set for every pod.
    bus =
      definition.database && config.AMQP_URL
        ? new RabbitMqBus({
            url: config.AMQP_URL,
            exchange: config.AMQP_EXCHANGE,
            queuePrefix: config.AMQP_QUEUE_PREFIX,
            topologyRefreshMs: config.AMQP_TOPOLOGY_REFRESH_MS,
            connectionName: `comanda-${definition.name}`,
          })
        : undefined;
    const service = await startService(definition, {
      port: config.PORT,
      databaseUrl: config.DATABASE_URL,
      bus,
      env,
    });
    onShutdownSignal(config.SHUTDOWN_TIMEOUT_MS, logger, async () => {
      await service.close();
      await bus?.close();
    });
  } catch (error) {
    logger.error(startFailure(error));
    process.exitCode = 1;
    // A service that refused to start must end, so its supervisor sees why and restarts it:
    // the bus connection (opened before the service) would otherwise keep it running.
    await bus?.close().catch(() => undefined);
  }
}

/** The line a failed start leaves: what went wrong, and which setting to look at. */
function startFailure(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  const { code, syscall, severity } = (error ?? {}) as Record<string, unknown>;
  // PostgreSQL's own refusal (pg's error: a severity and an SQLSTATE such as 53300 too many
  // clients, 3D000 no such database, 28P01 authentication failed).
  if (typeof severity === 'string' && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    return `the database at DATABASE_URL refused (${code}): ${message}`;
  }
  if (syscall === 'connect' || syscall === 'getaddrinfo') {
    return `cannot reach the database at DATABASE_URL: ${message}`;
  }
  return message;
}
