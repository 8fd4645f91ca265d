import type { LoggerService } from '@nestjs/common';
import { runInService } from '@comanda/context';

/** The part of a Nest logger the buses write to. */
export type BusLogger = Pick<LoggerService, 'log' | 'warn' | 'error'>;

/**
 * `logger` writing as `service`, whatever work happens to run when it writes. A shared
 * RabbitMQ connection's events (lost, reconnected) and a consumer's pauses arrive in the
 * connection's callbacks, outside the work of the service they concern: without this their
 * lines took the name of whichever service set up the process-wide logger last (standalone).
 */
export function loggerOf(logger: BusLogger, service: string | undefined): BusLogger {
  if (service === undefined) return logger;
  return {
    log: (message: unknown, ...rest: unknown[]) =>
      runInService(service, () => logger.log(message, ...rest)),
    warn: (message: unknown, ...rest: unknown[]) =>
      runInService(service, () => logger.warn(message, ...rest)),
    error: (message: unknown, ...rest: unknown[]) =>
      runInService(service, () => logger.error(message, ...rest)),
  };
}
