import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { BusContext, OnEvent } from '@comanda/messaging';
import { EnqueueDeliveries } from './enqueue-deliveries.usecase';

const consumer = { consumer: 'webhooks' };

/**
 * Turns the order events a subscription may name into deliveries, inside the inbox
 * transaction of the `orders.webhooks` queue (one handler per type of `SUBSCRIBABLE_EVENT_TYPES`).
 */
@Controller()
export class WebhookEventsConsumer {
  constructor(private readonly enqueue: EnqueueDeliveries) {}

  @OnEvent(EventTypes.OrderReadyToBePlacedInPos, consumer)
  async readyToBePlaced(@Payload() event: CloudEvent, @Ctx() ctx: BusContext): Promise<void> {
    await this.enqueue.execute(ctx.getTransaction(), event);
  }

  @OnEvent(EventTypes.OrderPlacementStarted, consumer)
  async placementStarted(@Payload() event: CloudEvent, @Ctx() ctx: BusContext): Promise<void> {
    await this.enqueue.execute(ctx.getTransaction(), event);
  }

  @OnEvent(EventTypes.OrderPlaced, consumer)
  async placed(@Payload() event: CloudEvent, @Ctx() ctx: BusContext): Promise<void> {
    await this.enqueue.execute(ctx.getTransaction(), event);
  }

  @OnEvent(EventTypes.OrderPlacementFailed, consumer)
  async placementFailed(@Payload() event: CloudEvent, @Ctx() ctx: BusContext): Promise<void> {
    await this.enqueue.execute(ctx.getTransaction(), event);
  }

  @OnEvent(EventTypes.OrderCheckoutFailed, consumer)
  async checkoutFailed(@Payload() event: CloudEvent, @Ctx() ctx: BusContext): Promise<void> {
    await this.enqueue.execute(ctx.getTransaction(), event);
  }
}
