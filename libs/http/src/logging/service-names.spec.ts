import { Writable } from 'node:stream';
import { runInService } from '@comanda/context';
import { createLogger } from './logging.module';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('service names on log lines', () => {
  it('names the service whose work logs, even through a logger another service created', () => {
    const { stream, lines } = capture();
    // In standalone mode the process-wide logger is made by the first service (auth).
    const shared = createLogger('auth', 'info', 'json', stream);
    runInService('config-store', () => shared.info('from config-store'));
    runInService('gateway', () => shared.child({ context: 'Proxy' }).warn('from the gateway'));
    shared.info('outside any service');
    expect(lines().map((line) => [line.service, line.msg])).toEqual([
      ['config-store', 'from config-store'],
      ['gateway', 'from the gateway'],
      ['auth', 'outside any service'],
    ]);
  });

  it('keeps Nest start-up chatter at debug, out of an info log', () => {
    const { stream, lines } = capture();
    const logger = createLogger('auth', 'info', 'json', stream);
    logger.info({ context: 'RouterExplorer' }, 'Mapped {/x, GET} route');
    logger.info({ context: 'auth' }, 'listening on port 1');
    expect(lines().map((line) => line.msg)).toEqual(['listening on port 1']);
  });
});
