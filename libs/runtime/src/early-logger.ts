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
  // Nest passes the context last (after a stack, for errors).
  const contextOf = (params: unknown[]) => {
    const last = params.at(-1);
    return typeof last === 'string' ? last : undefined;
  };
  Logger.overrideLogger({
    log: (message: unknown, ...params: unknown[]) =>
      logger.info({ context: contextOf(params) }, String(message)),
    warn: (message: unknown, ...params: unknown[]) =>
      logger.warn({ context: contextOf(params) }, String(message)),
    // Nest's own report of a start that failed inside it, with its stack: the caller writes
    // the one line a person reads, so this one is for LOG_LEVEL=debug.
    error: (message: unknown, ...params: unknown[]) => {
      const context = contextOf(params);
      if (context === 'ExceptionHandler') {
        const stack = message instanceof Error ? message.stack : undefined;
        logger.debug({ context }, stack ?? String(message));
      } else {
        logger.error({ context }, String(message));
      }
    },
    debug: (message: unknown, ...params: unknown[]) =>
      logger.debug({ context: contextOf(params) }, String(message)),
    verbose: (message: unknown, ...params: unknown[]) =>
      logger.trace({ context: contextOf(params) }, String(message)),
  });
  return logger;
}
