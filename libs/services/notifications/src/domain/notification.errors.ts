import { ProblemError, type ProblemFieldError, lookupTable } from '@comanda/http';
import type { SignatureRejection } from '@comanda/outbound';

const REJECTIONS: Record<SignatureRejection, string> = lookupTable({
  missing: 'The request has no Comanda-Signature header.',
  malformed: 'The Comanda-Signature header is not "t=<unix seconds>,v1=<hex HMAC-SHA256>".',
  no_timestamp: 'The Comanda-Signature header has no t=<unix seconds>.',
  stale: 'The signature timestamp is more than 300 seconds away from the receiver clock.',
  mismatch: "The signature does not match the body signed with the merchant's secret.",
});

/** The event is not signed by the merchant's partner: not stored, no effect. */
export class PartnerEventUnauthenticatedError extends ProblemError {
  constructor(readonly reason: SignatureRejection) {
    super({
      status: 401,
      code: 'notification.signature_invalid',
      title: 'Invalid signature',
      detail: REJECTIONS[reason],
      headers: { 'WWW-Authenticate': 'Comanda-Signature' },
    });
  }
}

/** Not a partner event (bad JSON, a missing or wrong member): not stored, no effect. */
export class MalformedPartnerEventError extends ProblemError {
  constructor(malformedJson: boolean, errors: ProblemFieldError[]) {
    super({
      status: 400,
      code: malformedJson ? 'request.malformed_json' : 'notification.invalid_event',
      title: malformedJson ? 'Malformed JSON' : 'Invalid partner event',
      detail: malformedJson
        ? 'The request body is not valid JSON.'
        : 'The body is not a partner event {eventId, type, paymentId, operationId, occurredAt, reason?}; see errors.',
      errors: malformedJson ? undefined : errors,
    });
  }
}

/**
 * The eventId is stored already with another body: a different event under a reused id. It
 * is refused rather than answered `duplicate`, which would drop the partner's event silently.
 */
export class PartnerEventIdReusedError extends ProblemError {
  constructor(eventId: string) {
    super({
      status: 409,
      code: 'notification.event_id_reused',
      title: 'Event id reused',
      detail: `An event with eventId "${eventId}" was stored before with a different body. Repeat an event with the same bytes; give every new event a new eventId.`,
    });
  }
}

export class PartnerEventMediaTypeError extends ProblemError {
  constructor(contentType: string | undefined) {
    super({
      status: 415,
      code: 'request.unsupported_media_type',
      title: 'Unsupported media type',
      detail: `Partner events are posted as application/json, not "${contentType ?? '(none)'}".`,
    });
  }
}

/**
 * The event could not be stored (database unreachable, ...). A 500 is what the contract
 * defines as a delivery failure: the partner treats the event as not delivered.
 */
export class PartnerEventNotStoredError extends ProblemError {
  constructor(cause: unknown) {
    super({
      status: 500,
      code: 'notification.not_stored',
      title: 'Event not stored',
      detail: 'The event could not be stored; it was not delivered. Send it again later.',
      cause,
    });
  }
}
