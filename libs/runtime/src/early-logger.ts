import { Logger } from '@nestjs/common';
import { createLogger, type LogFormat } from '@comanda/http';
import type { RuntimeEnv } from './service-definition';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Nest's process-wide logger from the first line of a process on (the broker connecting, a
 * setting refused), in the format and at the level the settings ask for, until a service's
 * own logger takes over. Read leniently: a bad LOG_LEVEL or LOG_FORMAT is refused by
 * loadConfig, in this logger's format (info, auto).
 */
export function installEarlyLogger(name: string, env: RuntimeEnv): ReturnType<typeof createLogger> {
  const level = LEVELS.includes(env.LOG_LEVEL ?? '') ? (env.LOG_LEVEL as string) : 'info';
  const format = (
    ['pretty', 'json'].includes(env.LOG_FORMAT ?? '') ? env.LOG_FORMAT : 'auto'
  ) as LogFormat;
  const logger = createLogger(name, level, format);
  Logger.overrideLogger({
    log: (message: unknown, context?: string) => logger.info({ context }, String(message)),
    warn: (message: unknown, context?: string) => logger.warn({ context }, String(message)),
    error: (message: unknown, context?: string) => logger.error({ context }, String(message)),
    debug: (message: unknown, context?: string) => logger.debug({ context }, String(message)),
    verbose: (message: unknown, context?: string) => logger.trace({ context }, String(message)),
  });
  return logger;
}
