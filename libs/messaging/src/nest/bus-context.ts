import { BaseRpcContext } from '@nestjs/microservices';
import type { DeliveredMessage } from '../bus/message-bus';

/** What `@Ctx()` gives an event handler: the delivery (attempt, headers, redelivered) and its queue. */
export class BusContext extends BaseRpcContext<[DeliveredMessage, string]> {
  getMessage(): DeliveredMessage {
    return this.args[0];
  }

  getQueue(): string {
    return this.args[1];
  }
}
