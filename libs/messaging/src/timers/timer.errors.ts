import { MessagingError } from '../bus/messaging.errors';

export class DuplicateTimerHandlerError extends MessagingError {
  constructor(name: string) {
    super('messaging.duplicate_timer_handler', `more than one @OnTimer('${name}') handler`);
  }
}

export class TimerOutsideTransactionError extends MessagingError {
  constructor(name: string) {
    super(
      'messaging.timer_outside_transaction',
      `timer ${name} must be scheduled or cancelled inside the transaction of its state change`,
    );
  }
}

export class TimerLockNotFoundError extends MessagingError {
  constructor(name: string, method: string) {
    super(
      'messaging.timer_lock_not_found',
      `@OnTimer('${name}') names lockFirst '${method}', which is not another method of its provider`,
    );
  }
}
