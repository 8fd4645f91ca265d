import { relative } from 'node:path';
import type { createLogger } from '@comanda/http';
import { ensureAdminCredentials, startPlatform } from '@comanda/platform';
import {
  ensurePortFree,
  installEarlyLogger,
  loadConfig,
  onShutdownSignal,
  RuntimeConfig,
  snapshotEnv,
} from '@comanda/runtime';
import { describeStartupFailure } from './startup-failure';

/**
 * `npm start`: the whole platform in one process on one port, with an embedded PostgreSQL
 * and the in-process bus unless DATABASE_URL / AMQP_URL point elsewhere.
 */
async function main(logger: ReturnType<typeof createLogger>): Promise<void> {
  const snapshot = snapshotEnv();
  const config = loadConfig(RuntimeConfig, snapshot);
  await ensurePortFree(config.PORT, config.HOST);
  const admin = await ensureAdminCredentials(config.COMANDA_DATA_DIR, snapshot);
  const env = Object.freeze({
    ...snapshot,
    COMANDA_ADMIN_CLIENT_ID: admin.clientId,
    COMANDA_ADMIN_CLIENT_SECRET: admin.clientSecret,
  });

  const platform = await startPlatform({ port: config.PORT, env });
  onShutdownSignal(config.SHUTDOWN_TIMEOUT_MS, nestStyle(logger), () => platform.close());

  const publicUrl = snapshot.COMANDA_PUBLIC_URL ?? `http://localhost:${platform.port}`;
  const credentials = admin.file ? shortPath(admin.file) : undefined;
  // The CLI talks to http://localhost:3000 unless told otherwise.
  const url = publicUrl === 'http://localhost:3000' ? '' : ` --url ${publicUrl}`;
  const block = [
    'Comanda is ready',
    `  API        ${publicUrl}   (listening on ${config.HOST}:${platform.port})`,
    `  API docs   ${publicUrl}/docs`,
    config.DATABASE_URL
      ? '  Data       PostgreSQL at DATABASE_URL'
      : `  Data       ${shortPath(config.COMANDA_DATA_DIR)}/ (embedded PostgreSQL)`,
    config.AMQP_URL ? '  Events     RabbitMQ at AMQP_URL' : '  Events     in process',
    credentials
      ? `  Admin      client "${admin.clientId}", secret in ${credentials}`
      : `  Admin      client "${admin.clientId}" from COMANDA_ADMIN_CLIENT_ID / COMANDA_ADMIN_CLIENT_SECRET`,
    credentials
      ? `  Next       npm run comanda -- login${url} --credentials-file ${credentials}`
      : `  Next       npm run comanda -- login${url} --tenant platform --client-id <id>  (secret in COMANDA_CLIENT_SECRET)`,
  ];
  logger.info(block.join('\n'));
}

/** Relative to where the user typed `npm start`, when that is shorter. */
function shortPath(path: string): string {
  const from = early.INIT_CWD ?? process.cwd();
  const short = relative(from, path);
  return short && !short.startsWith('..') && short.length < path.length ? short : path;
}

/** The shutdown helper speaks Nest's LoggerService. */
function nestStyle(logger: ReturnType<typeof createLogger>) {
  return {
    log: (message: string) => logger.info(message),
    warn: (message: string) => logger.warn(message),
    error: (message: string) => logger.error(message),
  };
}

const early = snapshotEnv();
// Lines of the platform before the first service takes over Nest's logger, in the same format.
const logger = installEarlyLogger('comanda', early);

main(logger).catch((error: unknown) => {
  // One line a person can act on; the stack only when asked for.
  logger.error(describeStartupFailure(error));
  if (error instanceof Error && error.stack) logger.debug(error.stack);
  process.exit(1);
});
