import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { TcpProxy } from './tcp-proxy';

/** What the server receives, through the proxy, of what a client sends. */
describe('TcpProxy', () => {
  let server: Server;
  let received: string;
  let proxy: TcpProxy;
  let client: Socket;

  beforeEach(async () => {
    received = '';
    server = createServer((socket) => socket.on('data', (chunk) => (received += String(chunk))));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = await TcpProxy.start('127.0.0.1', (server.address() as AddressInfo).port);
    client = connect(proxy.port, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
  });

  afterEach(async () => {
    client.destroy();
    await proxy.stop();
    await new Promise((resolve) => server.close(resolve));
  });

  const arrived = async (text: string): Promise<void> => {
    for (let waited = 0; received.length < text.length && waited < 2000; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Anything duplicated would be there by now, or soon: give it the same chance.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(received).toBe(text);
  };

  it('holds what is sent while stalled and delivers it once on resume, however often resumed', async () => {
    client.write('a');
    await arrived('a');
    proxy.stall();
    client.write('b');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toBe('a');
    proxy.resume();
    proxy.resume();
    await arrived('ab');
    client.write('c');
    await arrived('abc');
  });

  it('takes a second stall as one', async () => {
    proxy.stall();
    proxy.stall();
    client.write('x');
    proxy.resume();
    await arrived('x');
  });
});
