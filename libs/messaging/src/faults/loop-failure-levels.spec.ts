import { Module, type INestApplicationContext, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createTestDatabase, TcpProxy, waitFor, type TestDatabase } from '@comanda/testing';
import type { DataSource } from 'typeorm';
import { InProcessBus } from '../in-process/in-process-bus';
import { MessagingModule } from '../messaging.module';
import { loggedLoopFailures } from '../polling/polling-loop';
import {
  coreModule,
  messagingOptions,
  openServiceDatabase,
} from '../outbox/test-support/messaging-test-env';

type Level = 'log' | 'warn' | 'error';

/** Every line the application logs, with its level. */
class RecordingLogger implements LoggerService {
  readonly lines: Array<{ level: Level; message: string }> = [];
  log(message: unknown): void {
    this.lines.push({ level: 'log', message: String(message) });
  }
  warn(message: unknown): void {
    this.lines.push({ level: 'warn', message: String(message) });
  }
  error(message: unknown): void {
    this.lines.push({ level: 'error', message: String(message) });
  }
  loopLines(level: Level): string[] {
    return this.lines
      .filter((line) => line.level === level)
      .map((line) => line.message)
      .filter((message) => /^(timer poller|inbox cleanup) of /.test(message));
  }
}

describe('the failures of a service loop', () => {
  it('are warnings while its database is away, then it says it works again', async () => {
    const db: TestDatabase = await createTestDatabase('loop_levels');
    const target = new URL(db.url);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    const dataSource: DataSource = await openServiceDatabase(proxy.urlFor(db.url), 5, 2_000);
    const bus = new InProcessBus();
    const logger = new RecordingLogger();
    @Module({
      imports: [
        coreModule(dataSource, bus),
        // The inbox cleanup every 100 ms, not every minute: a round of it meets the outage.
        MessagingModule.forService(messagingOptions({ relay: { cleanupEveryMs: 100 } })),
      ],
    })
    class RootModule {}
    let app: INestApplicationContext | undefined;
    try {
      app = await NestFactory.createApplicationContext(RootModule, { logger });
      await app.init();

      proxy.goDown();
      // The two loops that poll the database on their own (the relay waits for a wake-up).
      await waitFor('the timer poller and the inbox cleanup to report a failed round', () => {
        const warned = logger.loopLines('warn').join('\n');
        return warned.includes('timer poller of') && warned.includes('inbox cleanup of');
      });
      expect(logger.loopLines('warn')[0]).toMatch(/ failed: /);
      expect(logger.loopLines('error')).toEqual([]);

      proxy.comeBack();
      await waitFor('the timer poller to work again', () =>
        logger.loopLines('log').some((line) => /^timer poller of .* works again/.test(line)),
      );
      expect(logger.loopLines('error')).toEqual([]);
    } finally {
      await app?.close();
      await bus.close();
      if (dataSource.isInitialized) await dataSource.destroy();
      await proxy.stop();
      await db.drop();
    }
  });

  it('are errors when the database answers and the round still fails', async () => {
    const lines: Array<[Level, string]> = [];
    const report = loggedLoopFailures(
      {
        log: (message) => lines.push(['log', message]),
        warn: (message) => lines.push(['warn', message]),
        error: (message) => lines.push(['error', message]),
      },
      'timer poller of "svc"',
    );
    // What pg raises for a statement the server refused: the database is there.
    const refused = Object.assign(new Error('relation "svc.timers" does not exist'), {
      code: '42P01',
    });
    const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    report.onError(refused, 1);
    report.onError(unreachable, 2);
    expect(lines).toEqual([
      ['error', 'timer poller of "svc" failed: relation "svc.timers" does not exist'],
      [
        'warn',
        expect.stringMatching(
          /^timer poller of "svc" failed: connect ECONNREFUSED .* \(2 rounds in a row;/,
        ),
      ],
    ]);
  });
});
