import { connect, type Socket } from 'node:net';
import { waitFor } from '@comanda/testing';
import { expectPlatformServing, V0 } from './support/clients';
import { startPlatformProcess, type PlatformProcess } from './support/platform-process';

const SLOW_SOCKETS = 300;

/** Opens a socket from `localAddress` and sends a request's headers one byte at a time. */
function slowClient(port: number, localAddress: string, sockets: Socket[]): void {
  const request = `POST /admin/tenants HTTP/1.1\r\nHost: x\r\nx-api-version: 0\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{`;
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  socket.on('error', () => undefined);
  sockets.push(socket);
  let sent = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || sent >= request.length) {
      clearInterval(timer);
      return;
    }
    socket.write(request[sent++]);
  }, 200);
  socket.once('close', () => clearInterval(timer));
}

describe('row 2 (high): a few hundred slow sockets do not hang the platform', () => {
  let platform: PlatformProcess;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    platform = await startPlatformProcess('slow', {
      env: {
        HTTP_HEADERS_TIMEOUT_MS: '3000',
        HTTP_REQUEST_TIMEOUT_MS: '6000',
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: '100',
      },
    });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await platform?.close();
  });

  it('serves a normal request within a second while 300 sockets trickle their headers', async () => {
    // From another loopback address, as an attacker's machine would be.
    for (let i = 0; i < SLOW_SOCKETS; i++) slowClient(platform.port, '127.0.0.2', sockets);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const response = await fetch(`${platform.baseUrl}/health/ready`, {
      headers: V0,
      signal: AbortSignal.timeout(1000),
    });
    expect(response.status).toBe(200);
    await expectPlatformServing(platform);
  });

  it('closes connections of one address past its cap, and slow requests past their deadline', async () => {
    const closed = () => sockets.filter((socket) => socket.destroyed || socket.closed).length;
    // Past the cap of 100 connections per address, the rest were closed at once; the others
    // are closed by the header deadline (3 s).
    await waitFor('the slow sockets to be closed', () => closed() === SLOW_SOCKETS, {
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    await expectPlatformServing(platform);
  });
});
