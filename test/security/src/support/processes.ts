import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..', '..', '..');

/** `node -r` this in every process the suite starts: it ends when the test runner is gone. */
export const EXIT_WITH_RUNNER = join(__dirname, 'exit-with-runner.js');

/** A process's output, keeping its last 20,000 characters. */
export function tail(limit = 20_000): { append(chunk: Buffer): void; text(): string } {
  let text = '';
  return {
    append: (chunk: Buffer) => {
      text = (text + chunk.toString('utf8')).slice(-limit);
    },
    text: () => text,
  };
}

/**
 * Ports the suite gives its processes: below Linux's ephemeral range (32768 and up), where no
 * `listen(0)` and no outgoing connection of a suite running beside this one can take a port
 * between its choice here and the process binding it, seconds later. (A port of the ephemeral
 * range once went to another suite's server in that window: the service failed to listen,
 * and the other server answered its readiness probe.)
 */
const FIRST_PORT = 10_000;
const PORTS = 22_000;

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = FIRST_PORT + Math.floor(Math.random() * PORTS);
    if (await canListen(port)) return port;
  }
  throw new Error('no free port found below the ephemeral range');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
