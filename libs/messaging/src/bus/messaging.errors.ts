/** Errors of the messaging library, each with a stable machine code. */
export class MessagingError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The broker did not take responsibility for a message: the caller keeps it and retries. */
export class PublishFailedError extends MessagingError {
  constructor(eventId: string, reason: string, cause?: unknown) {
    super('messaging.publish_failed', `event ${eventId} was not published: ${reason}`, { cause });
  }
}

export class BusClosedError extends MessagingError {
  constructor() {
    super('messaging.bus_closed', 'the message bus is closed');
  }
}

/**
 * The broker refused the login (wrong user or password) or the virtual host: retrying cannot
 * help, so a start that waits for the broker fails with this instead of waiting for ever.
 */
export class BrokerRefusedError extends MessagingError {
  constructor(where: string, reason: string) {
    super(
      'messaging.broker_refused',
      `RabbitMQ at ${where} refused the connection (${reason}): check the user, password and virtual host of AMQP_URL`,
    );
  }
}

export class InvalidSubscriptionError extends MessagingError {
  constructor(reason: string) {
    super('messaging.invalid_subscription', reason);
  }
}
