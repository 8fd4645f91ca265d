import { Injectable, Logger } from '@nestjs/common';
import type { PendingTimer } from '@comanda/messaging';
import { databaseNow, type Tx } from '@comanda/persistence';
import { move, nextStatus, type OrderTrigger } from '../../domain/order';
import type { OrderEntity } from '../../persistence/order.entity';
import { OrderRepository } from '../../persistence/order.repository';
import { OrderAnnouncer } from '../order-announcer';

export interface ExpirePlacementCommand {
  tenantId: string;
  orderId: string;
  /** `placement_timeout` after a session start, `pickup_timeout` when no POS started one. */
  trigger: Extract<OrderTrigger, 'placement_timeout' | 'pickup_timeout'>;
}

const FAILURES = {
  placement_timeout: {
    code: 'placement.timeout',
    message: 'Neither pos/placed nor pos/failed arrived within the placement timeout.',
  },
  pickup_timeout: {
    code: 'placement.not_picked_up',
    message: 'No POS started a placement session for the order in time.',
  },
} as const;

/**
 * A placement deadline passed: the order fails and is finalized, unless a callback got
 * there first (the order row lock makes the two take turns, so exactly one wins).
 */
@Injectable()
export class ExpirePlacement {
  private readonly logger = new Logger(ExpirePlacement.name);

  constructor(
    private readonly orders: OrderRepository,
    private readonly announcer: OrderAnnouncer,
  ) {}

  async execute(tx: Tx, command: ExpirePlacementCommand): Promise<void> {
    const order = await this.orders.find(tx, command.tenantId, command.orderId, true);
    if (!order || !nextStatus(order.status, command.trigger)) {
      this.logger.debug(`${command.trigger} of ${command.orderId} has nothing left to do`);
      return;
    }
    await this.expire(tx, order, command.trigger, await databaseNow(tx));
  }

  /**
   * Fails the order, locked by the caller, for its passed deadline. A callback that finds
   * the placement deadline passed calls it too before answering 405: the deadline holds to
   * the instant, not to when the timer poller gets to it.
   */
  async expire(
    tx: Tx,
    order: OrderEntity,
    trigger: ExpirePlacementCommand['trigger'],
    now: Date,
  ): Promise<void> {
    const failure = FAILURES[trigger];
    move(order, trigger, now, { code: failure.code });
    order.failure = { ...failure, at: now.toISOString() };
    await this.orders.save(tx, order);
    await this.announcer.placementFailed(tx, order, 'timeout');
  }
}

/**
 * The placement session's deadline has passed and the order still waits for its report. A
 * deadline whose `timer` is held back for a grace after an outage (docs/adr/0060: the POS's
 * report may have been refused while the service could not reach its database) has not
 * passed until that grace is over.
 */
export function placementDeadlinePassed(
  order: OrderEntity,
  now: Date,
  timer?: PendingTimer,
): boolean {
  const expiresAt = order.placement?.expiresAt;
  if (order.status !== 'placing' || typeof expiresAt !== 'string') return false;
  const due = Math.max(Date.parse(expiresAt), timer?.nextAttemptAt.getTime() ?? 0);
  return due <= now.getTime();
}

/** The instant a POS call is judged at: when it arrived, never later than now. */
export function arrival(receivedAt: Date | undefined, now: Date): Date {
  return receivedAt && receivedAt < now ? receivedAt : now;
}
