import { createServer, type Server } from 'node:net';
import { anOrder } from '../testing/order.builder';
import { SmtpMailTransport } from './mail-transport';
import { renderConfirmation } from './render-confirmation';

/** Just enough SMTP to take one message: what a mail relay would receive. */
function fakeSmtpServer(): Promise<{ server: Server; port: number; messages: string[] }> {
  const messages: string[] = [];
  const server = createServer((socket) => {
    let data: string | undefined;
    let buffer = '';
    socket.write('220 fake ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (data !== undefined) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          messages.push(data + buffer.slice(0, end));
          buffer = buffer.slice(end + 5);
          data = undefined;
          socket.write('250 queued\r\n');
          continue;
        }
        const newline = buffer.indexOf('\r\n');
        if (newline < 0) return;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') socket.write('250-fake\r\n250 8BITMIME\r\n');
        else if (verb === 'DATA') {
          data = '';
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        server,
        port: typeof address === 'object' && address ? address.port : 0,
        messages,
      });
    }),
  );
}

describe('the SMTP mail transport', () => {
  it('hands the rendered confirmation, text and HTML with the receipt, to the SMTP server of SMTP_URL', async () => {
    const { server, port, messages } = await fakeSmtpServer();
    try {
      const order = anOrder().withStatus('placed').build();
      order.receipt = 'RECEIPT LINE 1\nTOTAL CHF 18.50';
      order.placement = {
        sessionId: 's',
        startedAt: '2026-11-23T18:00:00Z',
        expiresAt: '2026-11-23T18:03:00Z',
        report: {
          orderName: 'Check 42',
          datePlaced: '2026-11-23T18:01:00Z',
          estimatedReadyTime: '2026-11-23T18:20:00Z',
        },
      };
      const rendered = renderConfirmation(order);
      await new SmtpMailTransport(`smtp://127.0.0.1:${port}`).send({
        from: 'orders@comanda.invalid',
        to: 'guest@example.com',
        ...rendered,
      });
      expect(messages).toHaveLength(1);
      expect(messages[0]).toContain('Subject: Your order Check 42 at Store');
      expect(messages[0]).toContain('To: guest@example.com');
      expect(messages[0]).toContain('text/plain');
      expect(messages[0]).toContain('text/html');
      expect(messages[0]).toContain('TOTAL CHF 18.50');
    } finally {
      server.close();
    }
  });
});
