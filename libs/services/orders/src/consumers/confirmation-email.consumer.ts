import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { BusContext, OnEvent } from '@comanda/messaging';
import { SendConfirmationEmail } from '../usecases/confirmation-email/send-confirmation-email.usecase';

@Controller()
export class ConfirmationEmailConsumer {
  constructor(private readonly sendConfirmationEmail: SendConfirmationEmail) {}

  @OnEvent(EventTypes.OrderPlaced, { consumer: 'confirmation-email' })
  orderPlaced(@Payload() event: CloudEvent<'order.placed'>, @Ctx() ctx: BusContext) {
    return this.sendConfirmationEmail.execute(
      ctx.getTransaction(),
      event.tenantid,
      event.data.orderId,
    );
  }
}
