import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { currentService, runInService } from '@comanda/context';
import { Pool } from 'undici';
import { connectLocally, registerLocalListener } from './local-listeners';

/** A pool that reaches `origin` in process, as the standalone gateway's upstream pools do. */
function localPool(origin: string, opened: { count: number }): Pool {
  return new Pool(origin, {
    connect: (_options, callback) => {
      const socket = connectLocally(origin);
      if (!socket) throw new Error(`nothing listens at ${origin} in this process`);
      opened.count++;
      setImmediate(() => callback(null, socket as Socket));
    },
  });
}

describe('in-process connections to a local listener', () => {
  let server: Server;
  let origin: string;
  let unregister: () => void;
  const seenBy: Array<string | undefined> = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      seenBy.push(currentService());
      if (request.url === '/reset') {
        response.write('partial');
        setImmediate(() => request.socket.destroy());
        return;
      }
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response.setHeader('x-peer', String(request.socket.remoteAddress));
        response.end(`${request.method} ${request.url} ${Buffer.concat(chunks).length}`);
      });
    });
    await runInService('config-store', async () => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      origin = `http://127.0.0.1:${port}`;
      unregister = registerLocalListener(origin, server, port);
    });
  });
  afterAll(async () => {
    unregister();
    await new Promise((resolve) => server.close(resolve));
  });

  it('carries requests and streamed bodies both ways, and keeps the connection alive', async () => {
    const opened = { count: 0 };
    const pool = localPool(origin, opened);
    try {
      const big = Buffer.alloc(3 * 1024 * 1024, 7);
      const chunks = (function* () {
        for (let at = 0; at < big.length; at += 64 * 1024) yield big.subarray(at, at + 64 * 1024);
      })();
      const posted = await pool.request({
        method: 'POST',
        path: '/upload',
        body: Readable.from(chunks),
      });
      expect(posted.statusCode).toBe(200);
      expect(posted.headers['x-peer']).toBe('127.0.0.1');
      expect(await posted.body.text()).toBe(`POST /upload ${big.length}`);
      for (let i = 0; i < 5; i++) {
        const read = await pool.request({ method: 'GET', path: `/read/${i}` });
        expect(await read.body.text()).toBe(`GET /read/${i} 0`);
      }
      expect(opened.count).toBeLessThanOrEqual(2);
    } finally {
      await pool.close();
    }
  });

  it('serves in the scope of the service that registered, whoever connects', async () => {
    seenBy.length = 0;
    const pool = localPool(origin, { count: 0 });
    try {
      await runInService('gateway', async () => {
        const response = await pool.request({ method: 'GET', path: '/scope' });
        await response.body.text();
      });
      expect(seenBy).toEqual(['config-store']);
    } finally {
      await pool.close();
    }
  });

  it('fails the caller when the server drops the connection mid-answer, as a reset would', async () => {
    const pool = localPool(origin, { count: 0 });
    try {
      const response = await pool.request({ method: 'GET', path: '/reset' });
      await expect(response.body.text()).rejects.toThrow();
    } finally {
      await pool.destroy();
    }
  });

  it('has nothing for an origin no server of this process listens on', () => {
    expect(connectLocally('http://127.0.0.1:1')).toBeUndefined();
  });
});
