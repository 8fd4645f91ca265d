import { Logger } from '@nestjs/common';
import { ensureAdminCredentials, startPlatform } from '@comanda/platform';
import { loadConfig, onShutdownSignal, RuntimeConfig, snapshotEnv } from '@comanda/runtime';

/**
 * `npm start`: the whole platform in one process on one port, with an embedded PostgreSQL
 * and the in-process bus unless DATABASE_URL / AMQP_URL point elsewhere.
 */
async function main(): Promise<void> {
  const logger = new Logger('comanda');
  const snapshot = snapshotEnv();
  const config = loadConfig(RuntimeConfig, snapshot);
  const admin = await ensureAdminCredentials(config.COMANDA_DATA_DIR, snapshot);
  const env = Object.freeze({
    ...snapshot,
    COMANDA_ADMIN_CLIENT_ID: admin.clientId,
    COMANDA_ADMIN_CLIENT_SECRET: admin.clientSecret,
  });

  const platform = await startPlatform({ port: config.PORT, env });
  onShutdownSignal(config.SHUTDOWN_TIMEOUT_MS, logger, () => platform.close());

  logger.log(`Comanda is serving on http://localhost:${platform.port}`);
  logger.log(`API description: http://localhost:${platform.port}/docs`);
  logger.log(
    admin.file
      ? `platform admin client "${admin.clientId}": secret in ${admin.file}`
      : `platform admin client "${admin.clientId}" from COMANDA_ADMIN_CLIENT_ID`,
  );
  logger.log(
    config.DATABASE_URL
      ? 'database: DATABASE_URL'
      : `database: embedded, under ${config.COMANDA_DATA_DIR}/`,
  );
  logger.log(config.AMQP_URL ? 'bus: RabbitMQ at AMQP_URL' : 'bus: in-process');
}

main().catch((error: unknown) => {
  new Logger('comanda').error(
    error instanceof Error ? (error.stack ?? error.message) : String(error),
  );
  process.exit(1);
});
