import type { LoggerService } from '@nestjs/common';

/**
 * Runs `stop` once on the first SIGTERM, SIGINT or SIGHUP, then exits. A second signal, or a stop
 * that outlives the timeout, exits at once: an operator's Ctrl-C always ends the process.
 */
export function onShutdownSignal(
  timeoutMs: number,
  logger: LoggerService,
  stop: () => Promise<void>,
): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    logger.log(`${signal}: shutting down gracefully`);
    const deadline = setTimeout(() => {
      logger.error(`shutdown took longer than ${timeoutMs} ms: exiting`);
      process.exit(1);
    }, timeoutMs);
    deadline.unref();
    stop().then(
      () => {
        logger.log('stopped cleanly');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
  // A closed terminal: stop as gracefully as for Ctrl-C.
  process.once('SIGHUP', handler);
}
