import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { TcpProxy } from './tcp-proxy';

/** What the server receives of what a client sends, and the client of the server's echo. */
describe('TcpProxy', () => {
  let server: Server;
  let received: string;
  let answered: string;
  let proxy: TcpProxy;
  let client: Socket;

  beforeEach(async () => {
    received = '';
    answered = '';
    server = createServer((socket) =>
      socket.on('data', (chunk) => {
        received += String(chunk);
        socket.write(String(chunk).toUpperCase());
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = await TcpProxy.start('127.0.0.1', (server.address() as AddressInfo).port);
    client = connect(proxy.port, '127.0.0.1');
    client.on('data', (chunk) => (answered += String(chunk)));
    await new Promise((resolve) => client.once('connect', resolve));
  });

  afterEach(async () => {
    client.destroy();
    await proxy.stop();
    await new Promise((resolve) => server.close(resolve));
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Waits for `read()` to reach the length of `text`, then a little more, and compares. */
  const settlesAt = async (read: () => string, text: string): Promise<void> => {
    for (let waited = 0; read().length < text.length && waited < 2000; waited += 10) {
      await sleep(10);
    }
    // Anything duplicated would be there by now, or soon: give it the same chance.
    await sleep(10);
    expect(read()).toBe(text);
  };
  const arrived = (text: string) => settlesAt(() => received, text);

  it('holds what is sent while stalled and delivers it once on resume, however often resumed', async () => {
    client.write('a');
    await arrived('a');
    proxy.stall();
    client.write('b');
    await sleep(50);
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

  it('lets a held statement reach the server, holds its answer, and delivers it once on resume', async () => {
    proxy.holdAnswersAfter('q');
    client.write('q');
    await arrived('q');
    await sleep(50);
    expect(answered).toBe('');
    // A stall on top of the hold: resuming undoes both, each way piped once.
    proxy.stall();
    proxy.resume();
    await settlesAt(() => answered, 'Q');
    client.write('r');
    await settlesAt(() => answered, 'QR');
  });
});
