import { mkdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FIRST_FREE_PORT = 10_000;
const FREE_PORTS = 22_000;
/** How long a port handed out stays promised: time enough for its process to start and bind. */
const CLAIM_MS = 5 * 60_000;

const ownClaims = new Set<string>();

/**
 * A port to listen on seconds later (the embedded PostgreSQL's, the gateway's when asked for
 * port 0, which the public URL needs before anything listens, or a test's service process).
 *
 * Drawn below Linux's ephemeral range (32768 and up), so no `listen(0)` and no outgoing
 * connection can take it in between. It is free when drawn (checked by binding), and it is
 * claimed: a file named after it in a folder of this account's temporary directory, created
 * exclusively. Another process calling `freePort` does not get it for {@link CLAIM_MS} (or until
 * this process exits), so parallel test processes, each starting services seconds after
 * choosing their ports, cannot both be handed the same one. Where that folder cannot be
 * written (a read-only file system), the bind check alone decides, as before.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = FIRST_FREE_PORT + Math.floor(Math.random() * FREE_PORTS);
    if ((await canListen(port)) && claim(port)) return port;
  }
  throw new Error('no free port found on 127.0.0.1 below 32768');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolveListen) => {
    const probe = createServer();
    probe.once('error', () => resolveListen(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolveListen(true)));
  });
}

/** False when another process holds a live claim on the port. */
function claim(port: number): boolean {
  const folder = join(tmpdir(), `comanda-ports-${process.getuid?.() ?? 'user'}`);
  const file = join(folder, String(port));
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return true;
    if (!expired(file)) return false;
    // An old claim: its process bound the port long ago, or never will. Take it over; of two
    // processes doing so at once, the exclusive create lets one through.
    try {
      unlinkSync(file);
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
    } catch {
      return false;
    }
  }
  if (ownClaims.size === 0) process.once('exit', releaseClaims);
  ownClaims.add(file);
  return true;
}

function expired(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > CLAIM_MS;
  } catch {
    return false;
  }
}

function releaseClaims(): void {
  for (const file of ownClaims) {
    try {
      unlinkSync(file);
    } catch {
      // Already taken over or removed: nothing to release.
    }
  }
  ownClaims.clear();
}
