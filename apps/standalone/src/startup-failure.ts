import { StartupError } from '@comanda/platform';
import { databaseUnavailable } from '@comanda/persistence';
import { ConfigError } from '@comanda/runtime';

/**
 * One line saying what went wrong and what to do: the message a user reads when `npm start`
 * stops before it is ready. Errors Comanda made for this (settings, data folder, PostgreSQL)
 * already say it; the system's own errors are translated here.
 */
export function describeStartupFailure(error: unknown): string {
  if (error instanceof StartupError || error instanceof ConfigError) return error.message;
  const system = error as NodeJS.ErrnoException & {
    port?: number;
    address?: string;
    hostname?: string;
  };
  if (system?.syscall === 'listen' && system.code === 'EADDRINUSE') {
    return (
      `port ${system.port} is already in use on ${system.address}: stop what uses it, ` +
      `or choose another port (PORT=${(system.port ?? 3000) + 1} npm start)`
    );
  }
  if (system?.syscall === 'listen' && system.code === 'EACCES') {
    return `port ${system.port} needs privileges this user does not have: choose a port above 1023 (PORT=3000 npm start)`;
  }
  if (system?.syscall === 'listen' && system.code === 'EADDRNOTAVAIL') {
    return `HOST="${system.address}" is not an address of this machine: use 0.0.0.0 (all) or 127.0.0.1 (this machine only)`;
  }
  if (system?.code === 'ECONNREFUSED' || system?.code === 'ENOTFOUND') {
    return `cannot reach ${system.address ?? system.hostname ?? 'a server'}${system.port ? `:${system.port}` : ''} (${system.code}): check DATABASE_URL / AMQP_URL, or unset them to use the embedded database and in-process bus`;
  }
  const message = error instanceof Error ? error.message : String(error);
  // A server took the connection but did not serve it: dropped (pg's "Connection terminated",
  // a reset socket), unanswered, or PostgreSQL starting up or shutting down.
  if (databaseUnavailable(error)) {
    return `the database at DATABASE_URL (or the broker at AMQP_URL) took the connection but did not serve it (${message.split('\n')[0]}): check that the server behind it is up, or unset them to use the embedded database and in-process bus`;
  }
  return `Comanda could not start: ${message.split('\n')[0]} (LOG_LEVEL=debug shows the details)`;
}
