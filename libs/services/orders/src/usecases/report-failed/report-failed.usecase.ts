import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { move } from '../../domain/order';
import { OrderRepository } from '../../persistence/order.repository';
import type { CallbackOutcome } from '../callback-outcome';
import { OrderAnnouncer } from '../order-announcer';
import { OpenCallback } from '../open-callback';
import { PlacementTimers } from '../placement-timers';

export interface ReportFailedCommand {
  tenantId: string;
  orderId: string;
  /** When the report reached the service (the deadline is judged at it). */
  receivedAt?: Date;
  code: string;
  message: string;
  data?: Record<string, unknown>;
}

/** `pos/failed`: finalizes the order as failed with the POS's code and emits `order.placement_failed`. */
@Injectable()
export class ReportFailed {
  constructor(
    private readonly orders: OrderRepository,
    private readonly timers: PlacementTimers,
    private readonly announcer: OrderAnnouncer,
    private readonly openCallback: OpenCallback,
  ) {}

  async execute(tx: Tx, command: ReportFailedCommand): Promise<CallbackOutcome> {
    const placementTimer = await this.timers.disarm(tx, command.orderId);
    const opened = await this.openCallback.execute(
      tx,
      {
        tenantId: command.tenantId,
        orderId: command.orderId,
        refusal: { callback: 'pos/failed', code: command.code },
        receivedAt: command.receivedAt,
      },
      placementTimer,
    );
    if (opened.refused) return opened.refused;
    const { order, now } = opened;
    move(order, 'pos_failed', now, { code: command.code });
    order.failure = {
      code: command.code,
      message: command.message,
      ...(command.data !== undefined ? { data: command.data } : {}),
      at: now.toISOString(),
    };
    await this.orders.save(tx, order);
    await this.announcer.placementFailed(tx, order, 'pos');
    return { accepted: true, order };
  }
}
