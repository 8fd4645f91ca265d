import { BaseRpcContext } from '@nestjs/microservices';
import type { EntityManager } from 'typeorm';
import type { DeliveredMessage } from '../bus/message-bus';

/**
 * What `@Ctx()` gives an event handler: the delivery (attempt, headers, redelivered), its
 * queue and, in a service with a database, the inbox transaction the handler runs in.
 */
export class BusContext extends BaseRpcContext<[DeliveredMessage, string, EntityManager?]> {
  getMessage(): DeliveredMessage {
    return this.args[0];
  }

  getQueue(): string {
    return this.args[1];
  }

  /**
   * The transaction that also records the event in the consumer's inbox: pass it to the use
   * case, so its effect and the inbox mark commit together (once), and the ack follows the commit.
   */
  getTransaction(): EntityManager {
    const tx = this.args[2];
    if (!tx)
      throw new Error(`${this.args[1]} runs without a database: it has no inbox transaction`);
    return tx;
  }
}
