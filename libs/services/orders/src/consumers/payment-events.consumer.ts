import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { BusContext, OnEvent } from '@comanda/messaging';
import {
  ApplyPaymentEvent,
  type PaymentEventStatus,
} from '../usecases/payments/apply-payment-event.usecase';

/**
 * One queue for every payment event: they reach the order in the order payments published
 * them (a `payment.failed` after an authorization is never handled before it).
 */
const PAYMENT_EVENTS = 'payment-events';

/** The payments service's view of each order's payment. */
@Controller()
export class PaymentEventsConsumer {
  constructor(private readonly applyPaymentEvent: ApplyPaymentEvent) {}

  @OnEvent(EventTypes.PaymentOperationRequested, { consumer: PAYMENT_EVENTS })
  operationRequested(
    @Payload() event: CloudEvent<'payment.operation_requested'>,
    @Ctx() ctx: BusContext,
  ) {
    return this.applyPaymentEvent.operationRequested(
      ctx.getTransaction(),
      event.tenantid,
      event.data,
    );
  }

  @OnEvent(EventTypes.PaymentRegistered, { consumer: PAYMENT_EVENTS })
  registered(@Payload() event: CloudEvent<'payment.registered'>, @Ctx() ctx: BusContext) {
    return this.apply('registered', event, ctx);
  }

  @OnEvent(EventTypes.PaymentAuthorized, { consumer: PAYMENT_EVENTS })
  authorized(@Payload() event: CloudEvent<'payment.authorized'>, @Ctx() ctx: BusContext) {
    return this.apply('authorized', event, ctx);
  }

  @OnEvent(EventTypes.PaymentCaptured, { consumer: PAYMENT_EVENTS })
  captured(@Payload() event: CloudEvent<'payment.captured'>, @Ctx() ctx: BusContext) {
    return this.apply('captured', event, ctx);
  }

  @OnEvent(EventTypes.PaymentAnnulled, { consumer: PAYMENT_EVENTS })
  annulled(@Payload() event: CloudEvent<'payment.annulled'>, @Ctx() ctx: BusContext) {
    return this.apply('annulled', event, ctx);
  }

  @OnEvent(EventTypes.PaymentFailed, { consumer: PAYMENT_EVENTS })
  failed(@Payload() event: CloudEvent<'payment.failed'>, @Ctx() ctx: BusContext) {
    return this.apply('failed', event, ctx);
  }

  @OnEvent(EventTypes.PaymentAnnulmentFailed, { consumer: PAYMENT_EVENTS })
  annulmentFailed(
    @Payload() event: CloudEvent<'payment.annulment_failed'>,
    @Ctx() ctx: BusContext,
  ) {
    return this.apply('annulment_failed', event, ctx);
  }

  private apply(
    status: PaymentEventStatus,
    event: CloudEvent<
      | 'payment.registered'
      | 'payment.authorized'
      | 'payment.captured'
      | 'payment.annulled'
      | 'payment.failed'
      | 'payment.annulment_failed'
    >,
    ctx: BusContext,
  ): Promise<void> {
    return this.applyPaymentEvent.execute(ctx.getTransaction(), {
      tenantId: event.tenantid,
      status,
      event: event.data,
    });
  }
}
