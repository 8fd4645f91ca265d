import { Injectable } from '@nestjs/common';
import type { Tx } from '@comanda/persistence';
import { move, type PlacementReport } from '../../domain/order';
import { OrderRefTakenError } from '../../domain/order.errors';
import { OrderRefsRepository } from '../../persistence/order-refs.repository';
import { OrderRepository } from '../../persistence/order.repository';
import type { CallbackOutcome } from '../callback-outcome';
import { OrderAnnouncer } from '../order-announcer';
import { OpenCallback } from '../open-callback';
import { PlacementTimers } from '../placement-timers';

export interface ReportPlacedCommand {
  tenantId: string;
  orderId: string;
  /** When the report reached the service (the deadline is judged at it). */
  receivedAt?: Date;
  report: PlacementReport;
  receipt?: string;
}

/**
 * `pos/placed`: finalizes the order as placed, ties its orderRefsDict values to it and emits
 * `order.placed`. The order row lock orders this against the timeout and a second callback.
 */
@Injectable()
export class ReportPlaced {
  constructor(
    private readonly orders: OrderRepository,
    private readonly refs: OrderRefsRepository,
    private readonly timers: PlacementTimers,
    private readonly announcer: OrderAnnouncer,
    private readonly openCallback: OpenCallback,
  ) {}

  async execute(tx: Tx, command: ReportPlacedCommand): Promise<CallbackOutcome> {
    const placementTimer = await this.timers.disarm(tx, command.orderId);
    const opened = await this.openCallback.execute(
      tx,
      {
        tenantId: command.tenantId,
        orderId: command.orderId,
        refusal: { callback: 'pos/placed', orderName: command.report.orderName },
        receivedAt: command.receivedAt,
      },
      placementTimer,
    );
    if (opened.refused) return opened.refused;
    const { order, now } = opened;
    move(order, 'pos_placed', now, { orderName: command.report.orderName });
    const taken = await this.refs.claim(
      tx,
      order.tenantId,
      order.id,
      command.report.orderRefsDict ?? {},
    );
    // Thrown, not returned: the transaction rolls back and the order stays open.
    if (taken.length > 0) throw new OrderRefTakenError(taken);
    order.placement = {
      sessionId: order.placement?.sessionId ?? null,
      startedAt: order.placement?.startedAt ?? null,
      expiresAt: order.placement?.expiresAt ?? null,
      report: command.report,
      placedAt: now.toISOString(),
    };
    order.receipt = command.receipt ?? null;
    await this.orders.save(tx, order);
    await this.announcer.placed(tx, order);
    return { accepted: true, order };
  }
}
