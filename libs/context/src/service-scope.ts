import { scopes } from './scope';

/**
 * The service a piece of work belongs to. Standalone mode runs every service in one process,
 * where Nest's out-of-request logger is process-wide: log lines take the
 * service name from here (set while a service starts, so its timers and server inherit it,
 * and around each consumed message) instead of from whichever service created them first.
 */
export function runInService<T>(service: string, work: () => T): T {
  return scopes.run({ service, request: scopes.getStore()?.request }, work);
}

export function currentService(): string | undefined {
  return scopes.getStore()?.service;
}
