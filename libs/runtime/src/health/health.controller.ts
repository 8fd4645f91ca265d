import { Controller, Get, Inject, Optional, Res } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { Public } from '@comanda/security';
import { MESSAGE_BUS, MessagingLifecycle, type MessageBus } from '@comanda/messaging';
import { DataSource } from 'typeorm';
import { READINESS_CHECK, type ReadinessCheck } from './readiness-check';

const PING_TIMEOUT_MS = 2000;

/** Checks shown in the readiness answer that do not turn it red (ADR 0069). */
const ADVISORY_CHECKS = new Set(['bus']);

/**
 * Liveness says the process answers; readiness says it can serve its API: its database
 * answers, and its outbox relay and timer poller are not failing or stuck. Kubernetes
 * routes traffic only to ready replicas. The bus is shown but does not count (ADR 0069):
 * the API needs only the database, and events wait in the outbox while the broker is away,
 * so a broker outage must not take every replica out of its Service. A bus that is down is
 * listed under `degraded`.
 * Not ready yet (while starting, or with the database lost) answers 503 with the same body as
 * `@nestjs/terminus`, but is no error: nothing is thrown or logged at error level, so a
 * probe during start-up does not look like a failure in the logs.
 */
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Optional() private readonly dataSource?: DataSource,
    @Optional() @Inject(MESSAGE_BUS) private readonly bus?: MessageBus,
    @Optional() private readonly messaging?: MessagingLifecycle,
    @Optional() @Inject(READINESS_CHECK) private readonly extra?: ReadinessCheck,
  ) {}

  @Get('live')
  live() {
    return { status: 'ok', info: {}, error: {}, details: {} };
  }

  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const checks: Array<Promise<HealthIndicatorResult>> = [];
    const dataSource = this.dataSource;
    if (dataSource) checks.push(this.database(dataSource));
    const bus = this.bus;
    if (bus) checks.push(Promise.resolve(this.busState(bus)));
    const messaging = this.messaging;
    if (messaging) checks.push(Promise.resolve(this.loops(messaging)));
    const extra = this.extra;
    if (extra) checks.push(this.extraState(extra));
    const details: HealthIndicatorResult = Object.assign({}, ...(await Promise.all(checks)));
    const entries = Object.entries(details);
    const up = Object.fromEntries(entries.filter(([, value]) => value.status === 'up'));
    const down = Object.fromEntries(
      entries.filter(([name, value]) => value.status !== 'up' && !ADVISORY_CHECKS.has(name)),
    );
    const degraded = Object.fromEntries(
      entries.filter(([name, value]) => value.status !== 'up' && ADVISORY_CHECKS.has(name)),
    );
    const ready = Object.keys(down).length === 0;
    if (!ready) reply.status(503);
    return {
      status: ready ? 'ok' : 'error',
      info: up,
      error: down,
      ...(Object.keys(degraded).length > 0 ? { degraded } : {}),
      details,
    };
  }

  private async database(dataSource: DataSource): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check('database');
    try {
      await Promise.race([
        dataSource.query('SELECT 1'),
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error('no answer within 2 s')), PING_TIMEOUT_MS).unref(),
        ),
      ]);
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * The outbox relay and the timer poller: running, last round fine, not stuck in one. The
   * answer names each loop's state (`ok`, `stuck`, `failing`, `stopped`).
   */
  private loops(messaging: MessagingLifecycle): HealthIndicatorResult {
    const indicator = this.indicators.check('messaging');
    const loops = messaging.loops();
    return messaging.isHealthy()
      ? indicator.up(loops)
      : indicator.down({
          message: 'a work loop (outbox relay, timer poller or sender) is failing or stuck',
          ...loops,
        });
  }

  private async extraState(extra: ReadinessCheck): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(extra.name);
    const { up, details } = await extra.check().catch((error: unknown) => ({
      up: false,
      details: { message: error instanceof Error ? error.message : String(error) },
    }));
    return up ? indicator.up(details) : indicator.down(details);
  }

  private busState(bus: MessageBus): HealthIndicatorResult {
    const indicator = this.indicators.check('bus');
    return bus.isReady()
      ? indicator.up()
      : indicator.down({
          message:
            'not connected: events wait in the outbox and consumers resume once the broker is back',
        });
  }
}
