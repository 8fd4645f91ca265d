import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { OnTimer, TimerService } from '@comanda/messaging';
import { UnitOfWork, type Tx } from '@comanda/persistence';
import { LessThan, Not } from 'typeorm';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhooksConfig } from './webhooks.config';

export const RETENTION_TIMER = 'webhook-delivery-retention';
const EVERY_MS = 24 * 3_600_000;

/**
 * Keeps the delivery log bounded: once a day, deliveries older than
 * `WEBHOOK_DELIVERY_RETENTION_MS` that are not pending are deleted. The timer is armed at
 * boot (every replica may; it is one row) and re-arms itself after each run.
 */
@Injectable()
export class DeliveryRetentionTimer implements OnApplicationBootstrap {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly timers: TimerService,
    private readonly config: WebhooksConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.unitOfWork.run((tx) => this.arm(tx, new Date(Date.now() + 60_000)));
  }

  @OnTimer(RETENTION_TIMER)
  async fire(_payload: Record<string, unknown>, tx: Tx): Promise<void> {
    await this.purge(tx, new Date());
    await this.arm(tx, new Date(Date.now() + EVERY_MS));
  }

  /** Deletes what the retention lets go of; answers how many deliveries went. */
  async purge(tx: Tx, now: Date): Promise<number> {
    const result = await tx.getRepository(WebhookDeliveryEntity).delete({
      createdAt: LessThan(new Date(now.getTime() - this.config.WEBHOOK_DELIVERY_RETENTION_MS)),
      status: Not('pending'),
    });
    return result.affected ?? 0;
  }

  private arm(tx: Tx, at: Date): Promise<void> {
    return this.timers.schedule(tx, { name: RETENTION_TIMER, key: 'all', fireAt: at, payload: {} });
  }
}
