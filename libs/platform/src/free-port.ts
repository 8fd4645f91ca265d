import { randomBytes } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from './process-alive';

const FIRST_FREE_PORT = 10_000;
const FREE_PORTS = 22_000;
/**
 * Ports of that range that fetch refuses to connect to ("bad port", the Fetch standard's
 * port blocking list): a platform drawn there could not be called by the CLI or a browser.
 */
const FETCH_BLOCKED_PORTS = new Set([10080]);
/** How long a port handed out stays promised: time enough for its process to start and bind. */
const CLAIM_MS = 5 * 60_000;

/** This process's claims: the file of each port, and what this process wrote into it. */
const ownClaims = new Map<string, string>();
let tidied = false;

/**
 * A port to listen on seconds later (the embedded PostgreSQL's, the gateway's when asked for
 * port 0, which the public URL needs before anything listens, or a test's service process).
 *
 * Drawn below Linux's ephemeral range (32768 and up), so no `listen(0)` and no outgoing
 * connection can take it in between. It is free when drawn (checked by binding), and it is
 * claimed: a file named after it in a folder of this account's temporary directory, created
 * exclusively, holding this process's id. Another process calling `freePort` does not get
 * it while this process lives, for up to {@link CLAIM_MS}, so parallel test processes, each
 * starting services seconds after choosing their ports, cannot both be handed the same one.
 * Where that folder cannot be used (a read-only file system, or a folder this account does
 * not own alone), the bind check alone decides, as before.
 */
export async function freePort(): Promise<number> {
  const folder = claimFolder();
  if (folder && !tidied) {
    tidied = true;
    tidy(folder);
  }
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = FIRST_FREE_PORT + Math.floor(Math.random() * FREE_PORTS);
    if (FETCH_BLOCKED_PORTS.has(port)) continue;
    if ((await canListen(port)) && (!folder || claim(folder, port))) return port;
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

/** The folder of claims: this account's own (0700), or undefined to go without claims. */
function claimFolder(): string | undefined {
  const uid = process.getuid?.();
  const folder = join(tmpdir(), `comanda-ports-${uid ?? 'user'}`);
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  try {
    const stat = lstatSync(folder);
    // Another account's folder (a shared /tmp) could hold claims that never expire.
    const ours = uid === undefined || stat.uid === uid;
    return stat.isDirectory() && ours && (stat.mode & 0o077) === 0 ? folder : undefined;
  } catch {
    return undefined;
  }
}

/** False when another live process holds a fresh claim on the port. */
function claim(folder: string, port: number): boolean {
  const file = join(folder, String(port));
  const token = `${process.pid} ${randomBytes(8).toString('hex')}\n`;
  if (!createExclusive(file, token)) {
    if (!stale(file)) return false;
    // Take it over. Of two processes that found it stale, the one whose rename moved it away
    // creates anew; the other finds nothing to rename, unless it comes in the microseconds
    // between the first's rename and create, on the same one of 22,000 ports.
    const moved = `${file}.${randomBytes(8).toString('hex')}.stale`;
    try {
      renameSync(file, moved);
      unlinkSync(moved);
    } catch {
      return false;
    }
    if (!createExclusive(file, token)) return false;
  }
  if (ownClaims.size === 0) process.once('exit', releaseClaims);
  ownClaims.set(file, token);
  return true;
}

function createExclusive(file: string, content: string): boolean {
  try {
    writeFileSync(file, content, { flag: 'wx', mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}

/** A claim whose process is gone, or older than {@link CLAIM_MS}: its port is free to give. */
function stale(file: string): boolean {
  try {
    if (Date.now() - statSync(file).mtimeMs > CLAIM_MS) return true;
    const pid = Number(readFileSync(file, 'utf8').split(' ')[0]);
    return !Number.isInteger(pid) || pid <= 0 || !processAlive(pid);
  } catch {
    return false;
  }
}

/**
 * Removes stale claims once per process: test runners give test code a `process` of their
 * own whose `exit` never comes, so claims are not always released by their process.
 */
function tidy(folder: string): void {
  try {
    for (const name of readdirSync(folder)) {
      if (!/^\d+$/.test(name)) continue;
      const file = join(folder, name);
      if (stale(file)) {
        try {
          unlinkSync(file);
        } catch {
          // Taken over or removed meanwhile.
        }
      }
    }
  } catch {
    // The folder went away: claims start over.
  }
}

/** Removes the claims this process still holds (not those another process took over). */
function releaseClaims(): void {
  for (const [file, token] of ownClaims) {
    try {
      if (readFileSync(file, 'utf8') === token) unlinkSync(file);
    } catch {
      // Already removed: nothing to release.
    }
  }
  ownClaims.clear();
}
