import { connect, type Socket } from 'node:net';
import { waitFor } from '@comanda/testing';
import { expectPlatformServing, V0 } from './support/clients';
import { startDeployment, type Deployment } from './support/deployment';

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

describe('row 2 (high): a few hundred slow sockets do not hang any process', () => {
  let deployment: Deployment;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    deployment = await startDeployment('slow', {
      env: {
        HTTP_HEADERS_TIMEOUT_MS: '3000',
        HTTP_REQUEST_TIMEOUT_MS: '6000',
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: '100',
      },
    });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await deployment?.close();
  });

  // The public port, and distributed, every service's own port (the internal network).
  const ports = () => [deployment.front, ...deployment.internal];

  it('serves a normal request within a second on every port while 300 sockets trickle their headers to each', async () => {
    // From another loopback address, as an attacker's machine would be.
    for (const { port } of ports()) {
      for (let i = 0; i < SLOW_SOCKETS; i++) slowClient(port, '127.0.0.2', sockets);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const { name, url } of ports()) {
      const response = await fetch(`${url}/health/ready`, {
        headers: V0,
        signal: AbortSignal.timeout(1000),
      });
      expect({ name, status: response.status }).toEqual({ name, status: 200 });
    }
    await expectPlatformServing(deployment);
  });

  it('closes connections of one address past its cap, and slow requests past their deadline', async () => {
    const closed = () => sockets.filter((socket) => socket.destroyed || socket.closed).length;
    // Past the cap of 100 connections per address on the public port, the rest were closed at
    // once; the others, and those to the services' own ports, by the header deadline (3 s).
    await waitFor('the slow sockets to be closed', () => closed() === sockets.length, {
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    await expectPlatformServing(deployment);
  });
});
