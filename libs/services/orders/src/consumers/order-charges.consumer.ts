import { Controller } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { EventTypes, type CloudEvent } from '@comanda/contracts';
import { BusContext, OnEvent } from '@comanda/messaging';
import { ProjectOrderCharges } from '../usecases/charges/project-order-charges.usecase';

@Controller()
export class OrderChargesConsumer {
  constructor(private readonly projectOrderCharges: ProjectOrderCharges) {}

  @OnEvent(EventTypes.ConfigUpdated, { consumer: 'order-charges' })
  configUpdated(@Payload() event: CloudEvent<'config.updated'>, @Ctx() ctx: BusContext) {
    return this.projectOrderCharges.execute(ctx.getTransaction(), event.tenantid, event.data);
  }
}
