import { spawnSync } from 'node:child_process';
import { chmodSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type FreePort = typeof import('./free-port').freePort;

const FOLDER = join(tmpdir(), `comanda-ports-${process.getuid?.() ?? 'user'}`);

/** A fresh copy of the module: what another process calling `freePort` would load. */
function anotherProcess(): FreePort {
  let loaded: FreePort | undefined;
  jest.isolateModules(() => {
    loaded = (jest.requireActual('./free-port') as typeof import('./free-port')).freePort;
  });
  return loaded as FreePort;
}

/** Math.random values that make `freePort` draw these ports, in order, then any. */
function drawing(...ports: number[]): jest.SpyInstance {
  const spy = jest.spyOn(Math, 'random');
  for (const port of ports) spy.mockReturnValueOnce((port - 10_000 + 0.5) / 22_000);
  return spy;
}

/** The id of a process that has ended. */
function goneProcessId(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

describe('freePort', () => {
  afterEach(() => jest.restoreAllMocks());

  it('does not hand a port it gave one process to another while that one starts', async () => {
    const port = await anotherProcess()();
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(32_768);

    drawing(port);
    const other = await anotherProcess()();

    expect(other).not.toBe(port);
  });

  it('never hands out a port fetch refuses to connect to (10080: a CLI could not reach the platform)', async () => {
    const freePort = anotherProcess();
    const draws = drawing(10_080);
    expect(await freePort()).not.toBe(10_080);
    // Drawn, and drawn again.
    expect(draws.mock.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('hands out again a port whose claim is old enough that its process bound it or never will', async () => {
    const port = await anotherProcess()();
    const sixMinutesAgo = new Date(Date.now() - 6 * 60_000);
    utimesSync(join(FOLDER, String(port)), sixMinutesAgo, sixMinutesAgo);

    drawing(port);
    expect(await anotherProcess()()).toBe(port);
  });

  it('hands out again a port claimed by a process that has ended', async () => {
    const port = await anotherProcess()();
    writeFileSync(join(FOLDER, String(port)), `${goneProcessId()} 0\n`);

    drawing(port);
    expect(await anotherProcess()()).toBe(port);
  });

  it('goes by the bind check alone when the folder of claims is open to other accounts', async () => {
    const port = await anotherProcess()();
    chmodSync(FOLDER, 0o777);
    try {
      drawing(port);
      expect(await anotherProcess()()).toBe(port);
    } finally {
      chmodSync(FOLDER, 0o700);
    }
  });
});
