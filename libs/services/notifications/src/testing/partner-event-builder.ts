import { randomUUID } from 'node:crypto';
import type { PartnerEvent } from '../domain/partner-event';

/** A valid partner event; override what a test is about. */
export function aPartnerEvent(overrides: Partial<PartnerEvent> = {}): PartnerEvent {
  return {
    eventId: `evt-${randomUUID()}`,
    type: 'registration_succeeded',
    paymentId: `pay-${randomUUID()}`,
    operationId: `op-${randomUUID()}`,
    occurredAt: new Date().toISOString(),
    ...overrides,
  };
}
