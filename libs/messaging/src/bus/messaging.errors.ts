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

export class InvalidSubscriptionError extends MessagingError {
  constructor(reason: string) {
    super('messaging.invalid_subscription', reason);
  }
}
