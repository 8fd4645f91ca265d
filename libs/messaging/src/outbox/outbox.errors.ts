import { MessagingError } from '../bus/messaging.errors';

/** An event is only ever written together with the state change it announces. */
export class OutboxOutsideTransactionError extends MessagingError {
  constructor(eventType: string) {
    super(
      'messaging.outbox_outside_transaction',
      `event ${eventType} must be added to the outbox inside the transaction of its state change`,
    );
  }
}
