import { createServer } from 'node:net';

/**
 * Fails before anything starts (a database initialised, a migration run, a broker
 * connection) when the port is taken: a second copy of a service must not do work it can
 * never serve. Port 0 (any free port) is always free.
 */
export function ensurePortFree(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolveFree, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolveFree()));
  });
}
