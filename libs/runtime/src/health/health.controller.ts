import { Controller, Get, Inject, Optional } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import { Public } from '@comanda/security';
import { MESSAGE_BUS, type MessageBus } from '@comanda/messaging';
import { DataSource } from 'typeorm';

const PING_TIMEOUT_MS = 2000;

/**
 * Liveness says the process answers; readiness says it can do its work: its database
 * answers and its bus is connected. Kubernetes routes traffic only to ready replicas.
 */
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Optional() private readonly dataSource?: DataSource,
    @Optional() @Inject(MESSAGE_BUS) private readonly bus?: MessageBus,
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    const checks: Array<() => Promise<HealthIndicatorResult>> = [];
    const dataSource = this.dataSource;
    if (dataSource) checks.push(() => this.database(dataSource));
    const bus = this.bus;
    if (bus) checks.push(async () => this.busState(bus));
    return this.health.check(checks);
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

  private busState(bus: MessageBus): HealthIndicatorResult {
    const indicator = this.indicators.check('bus');
    return bus.isReady() ? indicator.up() : indicator.down({ message: 'not connected' });
  }
}
