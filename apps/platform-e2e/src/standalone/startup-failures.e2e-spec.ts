import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@comanda/platform';
import { killGroup, startStandaloneProcess, type StandaloneProcess } from './standalone-process';

interface LogLine {
  level: number;
  service: string;
  msg: string;
}

function lines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** Starting it as a user would, with one mistake: one clear line, exit code 1, no stack. */
describe('standalone start-up failures', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'comanda-mistakes-'));
  let running: StandaloneProcess | undefined;
  let blocker: Server | undefined;

  afterEach(async () => {
    await killGroup(running);
    await new Promise((done) => (blocker ? blocker.close(done) : done(undefined)));
    blocker = undefined;
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function failure(settings: Record<string, string>): Promise<string> {
    running = startStandaloneProcess(
      {
        COMANDA_DATA_DIR: join(dataDir, 'data'),
        LOG_FORMAT: 'json',
        ...settings,
      },
      process.env,
    );
    expect(await running.exited()).toBe(1);
    const output = running.output();
    expect(output).not.toMatch(/^\s+at /m);
    const errors = lines(output).filter((line) => line.level >= 50);
    expect(errors).toHaveLength(1);
    expect(errors[0].msg).not.toContain('\n');
    return errors[0].msg;
  }

  it('names the port in use and what to do', async () => {
    const port = await freePort();
    blocker = createServer();
    await new Promise<void>((done) => blocker?.listen(port, '0.0.0.0', done));
    expect(await failure({ PORT: String(port) })).toBe(
      `port ${port} is already in use on 0.0.0.0: stop what uses it, or choose another port (PORT=${port + 1} npm start)`,
    );
  }, 60_000);

  it('quotes a bad setting as typed, once', async () => {
    expect(await failure({ PORT: 'abc' })).toBe(
      'invalid setting PORT="abc" (must be an integer number)',
    );
  }, 60_000);

  it("quotes a bad setting of one service's own before anything starts", async () => {
    // Not at the database: it would be the reason if the setting were checked after it.
    const port = await freePort();
    expect(
      await failure({
        PORT: String(await freePort()),
        DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/comanda`,
        PLACEMENT_TIMEOUT_MS: 'soon',
      }),
    ).toMatch(/^invalid setting PLACEMENT_TIMEOUT_MS="soon" \(/);
  }, 60_000);

  it('says a database it cannot reach is the problem', async () => {
    const port = await freePort();
    expect(
      await failure({
        PORT: String(await freePort()),
        DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/comanda`,
      }),
    ).toMatch(
      new RegExp(`^cannot reach 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\): check DATABASE_URL`),
    );
  }, 60_000);

  it('says the database is the problem when its address takes connections and drops them', async () => {
    // As a proxy or a pooler in front of a stopped server does.
    blocker = createServer((socket) => socket.destroy());
    const port = await freePort();
    await new Promise<void>((done) => blocker?.listen(port, '127.0.0.1', done));
    expect(
      await failure({
        PORT: String(await freePort()),
        DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/comanda`,
      }),
    ).toMatch(
      /^the database at DATABASE_URL \(or the broker at AMQP_URL\) took the connection but did not serve it \((Connection terminated unexpectedly|read ECONNRESET)\): check/,
    );
  }, 60_000);

  it('says which data folder it cannot use', async () => {
    const file = join(dataDir, 'a-file');
    writeFileSync(file, '');
    expect(
      await failure({ PORT: String(await freePort()), COMANDA_DATA_DIR: join(file, 'data') }),
    ).toBe(
      `cannot use the data folder ${join(file, 'data')} (ENOTDIR): set COMANDA_DATA_DIR to a folder this user can write`,
    );
  }, 60_000);

  it('says PostgreSQL would not start, with its own reason', async () => {
    // A cluster from an unknown major version, or as root one root owns: the server refuses it.
    const broken = join(dataDir, 'broken');
    mkdirSync(join(broken, 'postgres'), { recursive: true, mode: 0o700 });
    writeFileSync(join(broken, 'postgres', 'PG_VERSION'), '9\n');
    const message = await failure({ PORT: String(await freePort()), COMANDA_DATA_DIR: broken });
    // Its reason differs as root (the cluster belongs to root) and not: it is quoted either way.
    expect(message).toMatch(/^PostgreSQL stopped before it was ready: \S.+/);
  }, 60_000);

  it('shows the stack of a failure only at LOG_LEVEL=debug', async () => {
    running = startStandaloneProcess(
      {
        COMANDA_DATA_DIR: join(dataDir, 'data'),
        LOG_FORMAT: 'json',
        LOG_LEVEL: 'debug',
        PORT: 'abc',
      },
      process.env,
    );
    expect(await running.exited()).toBe(1);
    const debug = lines(running.output()).filter((line) => line.level === 20);
    expect(debug.map((line) => line.msg).join('\n')).toMatch(/^\s+at /m);
  }, 60_000);
});
