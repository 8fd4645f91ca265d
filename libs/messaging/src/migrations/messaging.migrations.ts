import { CreateDeadLetters1700000000001 } from './create-dead-letters.migration';
import { CreateMessagingTables1700000000000 } from './create-messaging-tables.migration';

/** Add these to a service's migrations (before its own) to get outbox, inbox and timers. */
export const MESSAGING_MIGRATIONS = [
  CreateMessagingTables1700000000000,
  CreateDeadLetters1700000000001,
];
