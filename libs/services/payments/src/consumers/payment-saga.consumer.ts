import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { BusContext, OnEvent } from '@comanda/messaging';
import { ApplyPaymentTrigger } from '../usecases/apply-trigger/apply-payment-trigger.usecase';
import { StartPayment } from '../usecases/start-payment/start-payment.usecase';

/**
 * The saga's inputs from the bus. Each handler runs in its inbox transaction, so a
 * redelivered event has no second effect and the effect commits with the inbox mark.
 */
@Controller()
export class PaymentSagaConsumer {
  constructor(
    private readonly start: StartPayment,
    private readonly apply: ApplyPaymentTrigger,
  ) {}

  @OnEvent(EventTypes.BasketCheckedOut, { consumer: 'start-payment' })
  async onCheckout(
    @Payload() event: CloudEvent<typeof EventTypes.BasketCheckedOut>,
    @Ctx() ctx: BusContext,
  ): Promise<void> {
    await this.start.execute(ctx.getTransaction(), event.tenantid, event.data);
  }

  @OnEvent(EventTypes.OrderPlaced, { consumer: 'capture-placed-order' })
  async onPlaced(
    @Payload() event: CloudEvent<typeof EventTypes.OrderPlaced>,
    @Ctx() ctx: BusContext,
  ): Promise<void> {
    if (!event.data.paymentId) return;
    await this.apply.execute(
      ctx.getTransaction(),
      event.data.paymentId,
      { kind: 'order_placed' },
      { eventId: event.id, occurredAt: new Date(event.time), tenantId: event.tenantid },
    );
  }

  @OnEvent(EventTypes.OrderPlacementFailed, { consumer: 'annul-unplaced-order' })
  async onPlacementFailed(
    @Payload() event: CloudEvent<typeof EventTypes.OrderPlacementFailed>,
    @Ctx() ctx: BusContext,
  ): Promise<void> {
    if (!event.data.paymentId) return;
    await this.apply.execute(
      ctx.getTransaction(),
      event.data.paymentId,
      { kind: 'order_placement_failed', reason: `${event.data.cause}: ${event.data.code}` },
      { eventId: event.id, occurredAt: new Date(event.time), tenantId: event.tenantid },
    );
  }

  /** A partner event the notification receiver verified and stored. */
  @OnEvent(EventTypes.PartnerEventReceived, { consumer: 'apply-partner-event' })
  async onPartnerEvent(
    @Payload() event: CloudEvent<typeof EventTypes.PartnerEventReceived>,
    @Ctx() ctx: BusContext,
  ): Promise<void> {
    const { data } = event;
    const occurredAt = new Date(data.occurredAt);
    await this.apply.execute(
      ctx.getTransaction(),
      data.paymentId,
      {
        kind: 'partner_event',
        type: data.type,
        operationId: data.operationId,
        reason: data.reason,
      },
      {
        eventId: data.eventId,
        occurredAt: Number.isNaN(occurredAt.getTime()) ? undefined : occurredAt,
        tenantId: event.tenantid,
        merchantId: data.merchantId,
      },
    );
  }
}
