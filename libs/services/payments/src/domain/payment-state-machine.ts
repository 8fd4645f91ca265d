import { lookupTable } from '@comanda/http';
import type { PartnerEventType, PaymentOperationType } from '@comanda/contracts';

/**
 * The payment saga as a transition table. A payment only ever moves up the ranks below
 * (capturing and annulling may stay in place while capture or annulment is retried), so a
 * duplicate, late or out-of-order event can never move it backwards, capture it after it
 * failed, or run two annulments at once: the first is sent on the one move into `annulling`,
 * and a retry only after the previous one ended in a failure (ADR 0042).
 */
export const PAYMENT_STATES = [
  'registration_pending',
  'authorization_pending',
  'authorized',
  'capturing',
  'captured',
  'failed',
  'annulling',
  'annulled',
  'annulment_failed',
] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

export const STATE_RANK: Readonly<Record<PaymentState, number>> = lookupTable({
  registration_pending: 0,
  authorization_pending: 1,
  authorized: 2,
  capturing: 3,
  captured: 4,
  failed: 4,
  annulling: 5,
  annulled: 6,
  annulment_failed: 6,
});

export const TERMINAL_STATES: ReadonlySet<PaymentState> = new Set([
  'captured',
  'failed',
  'annulled',
  'annulment_failed',
]);

/** What can happen to a payment: partner events, answers to sending, the order, timers. */
export type PaymentTrigger =
  | { kind: 'partner_event'; type: PartnerEventType; operationId: string; reason?: string }
  | {
      kind: 'operation_rejected';
      operationId: string;
      operationType: PaymentOperationType;
      reason: string;
    }
  /** `accepted`: the partner answered 2xx before the deadline (rule 3); else it never did. */
  | {
      kind: 'operation_timed_out';
      operationId: string;
      operationType: PaymentOperationType;
      accepted: boolean;
    }
  | { kind: 'order_placed' }
  | { kind: 'order_placement_failed'; reason: string }
  | { kind: 'capture_retry_due' }
  | { kind: 'annulment_retry_due' }
  | { kind: 'reservation_expired' };

/** Payment events on the bus a transition announces. */
export type AnnouncedEvent =
  'registered' | 'authorized' | 'captured' | 'annulled' | 'failed' | 'annulment_failed';

export type PaymentEffect =
  | { kind: 'send'; operationType: PaymentOperationType; operationId: string }
  | { kind: 'announce'; event: AnnouncedEvent }
  | { kind: 'schedule_capture_retry'; at: Date }
  | { kind: 'cancel_capture_retry' }
  | { kind: 'schedule_annulment_retry'; at: Date }
  | { kind: 'cancel_annulment_retry' }
  | { kind: 'schedule_reservation_expiry'; at: Date };

export interface PendingOperation {
  id: string;
  type: PaymentOperationType;
}

/** The part of a payment the saga decides on. */
export interface PaymentSaga {
  state: PaymentState;
  /** The operation whose completion the payment waits for; events for any other are ignored. */
  pending: PendingOperation | null;
  failureReason: string | null;
  reservationExpiresAt: Date | null;
  captureFailures: number;
  /**
   * The payment's latest annulment, kept after it failed or timed out: its success, however
   * late, still means the partner released the money (ADR 0042).
   */
  lastAnnulmentId: string | null;
  annulmentFailures: number;
}

export interface SagaPolicy {
  reservationTtlMs: number;
  /** Delay before the n-th capture retry (n = failures so far, 1-based); none left: wait for expiry. */
  captureRetryDelaysMs: readonly number[];
  /** Delay before the n-th annulment retry; none left, or at the reservation's end: give up. */
  annulmentRetryDelaysMs: readonly number[];
}

export interface Decision {
  applied: boolean;
  /** Why an ignored trigger had no effect, or what an applied one did. */
  note: string;
  saga: PaymentSaga;
  effects: PaymentEffect[];
}

interface Step {
  now: Date;
  policy: SagaPolicy;
  newOperationId: () => string;
  trigger: PaymentTrigger;
}

type Rule = (saga: PaymentSaga, step: Step) => Omit<Decision, 'applied'> | string;

/** The name a trigger has in the table: partner events and `<operation>_rejected|_timed_out`. */
export type TriggerName =
  | PartnerEventType
  | `${PaymentOperationType}_rejected`
  | `${PaymentOperationType}_timed_out`
  | 'order_placed'
  | 'order_placement_failed'
  | 'capture_retry_due'
  | 'annulment_retry_due'
  | 'reservation_expired';

/**
 * The name of `trigger` in the table. An answer or a deadline is named by its own operation,
 * also when it is not the one the payment waits for (what the payment's history records).
 */
export function triggerName(trigger: PaymentTrigger): TriggerName {
  switch (trigger.kind) {
    case 'partner_event':
      return trigger.type;
    case 'operation_rejected':
      return `${trigger.operationType}_rejected`;
    case 'operation_timed_out':
      return `${trigger.operationType}_timed_out`;
    default:
      return trigger.kind;
  }
}

/** The type of operation a trigger that names one is about. */
function operationTypeOfTrigger(
  trigger: Extract<PaymentTrigger, { operationId: string }>,
): PaymentOperationType {
  return trigger.kind === 'partner_event' ? operationTypeOf(trigger.type) : trigger.operationType;
}

/** The operation a partner event completes: `capture_failed` completes a `capture`. */
export function operationTypeOf(event: PartnerEventType): PaymentOperationType {
  return event.slice(0, event.indexOf('_')) as PaymentOperationType;
}

function send(
  type: PaymentOperationType,
  step: Step,
): { pending: PendingOperation; effect: PaymentEffect } {
  const id = step.newOperationId();
  return { pending: { id, type }, effect: { kind: 'send', operationType: type, operationId: id } };
}

function reasonOf(trigger: PaymentTrigger, fallback: string): string {
  if ('reason' in trigger && trigger.reason) return `${fallback}: ${trigger.reason}`;
  return fallback;
}

/** Payment failed before a reservation could exist: nothing to annul. */
const failWithoutReservation =
  (reason: string): Rule =>
  (saga, step) => ({
    note: `payment failed (${reason})`,
    saga: {
      ...saga,
      state: 'failed',
      pending: null,
      failureReason: reasonOf(step.trigger, reason),
    },
    effects: [{ kind: 'announce', event: 'failed' }],
  });

/**
 * The partner may hold a reservation we cannot see (rule 3), or holds the registered
 * transaction whose next operation it refused (ARCHITECTURE step 5): fail, and annul it.
 * A reservation we never heard of began before now, so it ends at the latest one TTL from
 * now: that bounds the annulment's retries.
 */
const failAndAnnul =
  (reason: string): Rule =>
  (saga, step) => {
    const annulment = send('annulment', step);
    return {
      note: `payment failed (${reason}); annulment sent`,
      saga: {
        ...saga,
        state: 'annulling',
        pending: annulment.pending,
        lastAnnulmentId: annulment.pending.id,
        failureReason: reasonOf(step.trigger, reason),
        reservationExpiresAt:
          saga.reservationExpiresAt ?? new Date(step.now.getTime() + step.policy.reservationTtlMs),
      },
      effects: [
        { kind: 'announce', event: 'failed' },
        { kind: 'cancel_capture_retry' },
        annulment.effect,
      ],
    };
  };

const annul =
  (why: string): Rule =>
  (saga, step) => {
    const annulment = send('annulment', step);
    return {
      note: `${why}; annulment sent`,
      saga: {
        ...saga,
        state: 'annulling',
        pending: annulment.pending,
        lastAnnulmentId: annulment.pending.id,
      },
      effects: [{ kind: 'cancel_capture_retry' }, annulment.effect],
    };
  };

const reservationExpired = (saga: PaymentSaga, now: Date): boolean =>
  saga.reservationExpiresAt !== null && now.getTime() >= saga.reservationExpiresAt.getTime();

const captureFailed: Rule = (saga, step) => {
  const failures = saga.captureFailures + 1;
  const after = { ...saga, pending: null, captureFailures: failures };
  if (reservationExpired(saga, step.now)) {
    return annul(`capture failed ${failures} time(s) and the reservation expired`)(after, step);
  }
  const delay = step.policy.captureRetryDelaysMs[failures - 1];
  const at = delay === undefined ? undefined : new Date(step.now.getTime() + delay);
  if (at && (saga.reservationExpiresAt === null || at < saga.reservationExpiresAt)) {
    return {
      note: `capture failed (${failures}); retry at ${at.toISOString()}`,
      saga: after,
      effects: [{ kind: 'schedule_capture_retry', at }],
    };
  }
  return {
    note: `capture failed (${failures}); no retry before the reservation expires, annulment then`,
    saga: after,
    effects: [],
  };
};

/** No annulment is left to try: the money may still be held, and the order hears so. */
const giveUpAnnulment = (saga: PaymentSaga, note: string): ReturnType<Rule> => ({
  note,
  saga: { ...saga, state: 'annulment_failed' },
  effects: [{ kind: 'announce', event: 'annulment_failed' }],
});

/**
 * An annulment that failed, was refused or timed out is tried again with a new operation
 * while the reservation it releases may still exist; after that there is nothing left to
 * release, and the payment ends `annulment_failed`.
 */
const annulmentFailed =
  (what: string): Rule =>
  (saga, step) => {
    const failures = saga.annulmentFailures + 1;
    const after = { ...saga, pending: null, annulmentFailures: failures };
    const note = reasonOf(step.trigger, what);
    const delay = step.policy.annulmentRetryDelaysMs[failures - 1];
    const at = delay === undefined ? undefined : new Date(step.now.getTime() + delay);
    if (at && (saga.reservationExpiresAt === null || at < saga.reservationExpiresAt)) {
      return {
        note: `${note} (${failures}); retry at ${at.toISOString()}`,
        saga: after,
        effects: [{ kind: 'schedule_annulment_retry', at }],
      };
    }
    return giveUpAnnulment(after, `${note} (${failures}); no retry before the reservation expires`);
  };

/** The partner released the money: the pending annulment succeeded, or one sent before it. */
const annulled: Rule = (saga, step) => ({
  note: annulledNote(saga, step.trigger),
  saga: { ...saga, state: 'annulled', pending: null },
  effects: [{ kind: 'announce', event: 'annulled' }, { kind: 'cancel_annulment_retry' }],
});

function annulledNote(saga: PaymentSaga, trigger: PaymentTrigger): string {
  const operationId = 'operationId' in trigger ? trigger.operationId : undefined;
  if (saga.pending?.id === operationId) return 'annulled';
  if (operationId === saga.lastAnnulmentId) return 'annulled: the latest annulment succeeded late';
  return saga.pending
    ? 'annulled: an earlier annulment succeeded late, while a newer one is in flight'
    : 'annulled: an earlier annulment succeeded late';
}

const TABLE: Readonly<Record<PaymentState, Partial<Record<TriggerName, Rule>>>> = lookupTable({
  registration_pending: {
    registration_succeeded: (saga, step) => {
      const authorization = send('authorization', step);
      const expiresAt = new Date(step.now.getTime() + step.policy.reservationTtlMs);
      return {
        note: 'registered; authorization sent',
        saga: {
          ...saga,
          state: 'authorization_pending',
          pending: authorization.pending,
          reservationExpiresAt: expiresAt,
        },
        effects: [
          { kind: 'announce', event: 'registered' },
          { kind: 'schedule_reservation_expiry', at: expiresAt },
          authorization.effect,
        ],
      };
    },
    registration_failed: failWithoutReservation('registration_failed'),
    registration_cancelled: failWithoutReservation('registration_cancelled'),
    registration_rejected: failWithoutReservation('registration_rejected'),
    registration_timed_out: failAndAnnul('registration_timed_out'),
  },
  authorization_pending: {
    authorization_succeeded: (saga) => ({
      note: 'authorized',
      saga: { ...saga, state: 'authorized', pending: null },
      effects: [{ kind: 'announce', event: 'authorized' }],
    }),
    authorization_failed: failWithoutReservation('authorization_failed'),
    // The request was refused, not the transaction: the registration stands at the partner.
    authorization_rejected: failAndAnnul('authorization_rejected'),
    authorization_timed_out: failAndAnnul('authorization_timed_out'),
  },
  authorized: {
    order_placed: (saga, step) => {
      const capture = send('capture', step);
      return {
        note: 'order placed; capture sent',
        saga: { ...saga, state: 'capturing', pending: capture.pending },
        effects: [capture.effect],
      };
    },
    order_placement_failed: (saga, step) =>
      annul(reasonOf(step.trigger, 'order placement failed after authorization'))(saga, step),
    reservation_expired: annul('the reservation expired before the order was placed'),
  },
  capturing: {
    capture_succeeded: (saga, step) => {
      const awaited =
        'operationId' in step.trigger && saga.pending?.id === step.trigger.operationId;
      return {
        note: awaited ? 'captured' : 'captured: an earlier capture succeeded late',
        saga: { ...saga, state: 'captured', pending: null },
        effects: awaited
          ? [{ kind: 'announce', event: 'captured' }]
          : [{ kind: 'announce', event: 'captured' }, { kind: 'cancel_capture_retry' }],
      };
    },
    capture_failed: captureFailed,
    capture_rejected: captureFailed,
    // Rule 3 is for a capture the partner accepted; one it never accepted (a partner outage)
    // failed like a refused one, and is retried while the reservation lasts (rule 6).
    capture_timed_out: (saga, step) =>
      step.trigger.kind === 'operation_timed_out' && !step.trigger.accepted
        ? captureFailed(saga, step)
        : failAndAnnul('capture_timed_out')(saga, step),
    capture_retry_due: (saga, step) => {
      if (saga.pending) return 'a capture is already in flight';
      if (reservationExpired(saga, step.now)) return annul('the reservation expired')(saga, step);
      const capture = send('capture', step);
      return {
        note: `capture retried (after ${saga.captureFailures} failure(s))`,
        saga: { ...saga, pending: capture.pending },
        effects: [capture.effect],
      };
    },
    reservation_expired: (saga, step) =>
      // An in-flight capture ends in an event or a timeout, and either annuls from here.
      saga.pending
        ? 'a capture is in flight; its outcome decides'
        : annul('the reservation expired while capture kept failing')(saga, step),
  },
  annulling: {
    annulment_succeeded: annulled,
    annulment_failed: annulmentFailed('annulment failed'),
    annulment_rejected: annulmentFailed('annulment rejected by the partner'),
    annulment_timed_out: annulmentFailed('no annulment event within the operation timeout'),
    annulment_retry_due: (saga, step) => {
      if (saga.pending) return 'an annulment is already in flight';
      if (reservationExpired(saga, step.now)) {
        return giveUpAnnulment(
          saga,
          'the reservation expired before the annulment could be retried',
        );
      }
      const annulment = send('annulment', step);
      return {
        note: `annulment retried (after ${saga.annulmentFailures} failure(s))`,
        saga: { ...saga, pending: annulment.pending, lastAnnulmentId: annulment.pending.id },
        effects: [annulment.effect],
      };
    },
  },
  captured: {},
  failed: {},
  annulled: {},
  // Not a move back: the same rank, and what the partner did to the money.
  annulment_failed: { annulment_succeeded: annulled },
});

/**
 * The operation type whose late success the payment takes though it does not wait for it
 * (nothing is pending, or a newer operation of the type is; the pending one's own success
 * completes it the usual way): an annulment's, whatever the state that allows one, and a
 * capture's while capturing. Undefined for any other trigger.
 */
function unawaitedSuccessOf(
  saga: PaymentSaga,
  trigger: PaymentTrigger,
): 'annulment' | 'capture' | undefined {
  if (trigger.kind !== 'partner_event') return undefined;
  let type: 'annulment' | 'capture';
  if (trigger.type === 'annulment_succeeded') type = 'annulment';
  else if (trigger.type === 'capture_succeeded' && saga.state === 'capturing') type = 'capture';
  else return undefined;
  if (saga.pending === null) return type;
  return saga.pending.type === type && saga.pending.id !== trigger.operationId ? type : undefined;
}

/**
 * A late success of one of the payment's annulments completes it even though the payment no
 * longer waits for it: the latest one after it failed or timed out (or while its retry
 * waits), or an earlier one, also while a newer one is in flight. Whichever annulment the
 * partner carried out, it released the money (ADR 0042, 0050). Likewise a capture's while
 * capture is retried: whichever capture the partner carried out, it took the money (ADR
 * 0052). `sentOperations` holds the ids of the operations of that type sent for this
 * payment; the latest annulment is known from the saga itself.
 */
function isLateSuccess(
  saga: PaymentSaga,
  trigger: PaymentTrigger,
  sentOperations: ReadonlySet<string>,
): boolean {
  const type = unawaitedSuccessOf(saga, trigger);
  if (type === undefined || !('operationId' in trigger)) return false;
  if (type === 'annulment' && trigger.operationId === saga.lastAnnulmentId) return true;
  return sentOperations.has(trigger.operationId);
}

/**
 * The type of the operations whose ids `decide` needs (those sent for this payment): only for
 * an unawaited success that does not name the latest annulment.
 */
export function sentOperationsNeeded(
  saga: PaymentSaga,
  trigger: PaymentTrigger,
): 'annulment' | 'capture' | undefined {
  const type = unawaitedSuccessOf(saga, trigger);
  if (type === 'annulment' && 'operationId' in trigger) {
    return trigger.operationId === saga.lastAnnulmentId ? undefined : type;
  }
  return type;
}

/** Decides what a trigger does to a payment; an ignored trigger leaves it unchanged. */
export function decide(
  saga: PaymentSaga,
  trigger: PaymentTrigger,
  now: Date,
  policy: SagaPolicy,
  newOperationId: () => string,
  /** Ids of the operations sent for this payment of the type `sentOperationsNeeded` names. */
  sentOperations: ReadonlySet<string> = new Set(),
): Decision {
  const ignore = (note: string): Decision => ({ applied: false, note, saga, effects: [] });
  if ('operationId' in trigger && !isLateSuccess(saga, trigger, sentOperations)) {
    if (!saga.pending || saga.pending.id !== trigger.operationId) {
      return ignore('not the operation the payment waits for (duplicate, late or unknown)');
    }
    if (operationTypeOfTrigger(trigger) !== saga.pending.type) {
      return ignore(`${triggerName(trigger)} does not end a ${saga.pending.type}`);
    }
  }
  const name = triggerName(trigger);
  const rule = TABLE[saga.state][name];
  if (!rule) return ignore(`${name} has no effect in state ${saga.state}`);
  const outcome = rule(saga, { now, policy, newOperationId, trigger });
  if (typeof outcome === 'string') return ignore(outcome);
  if (STATE_RANK[outcome.saga.state] < STATE_RANK[saga.state]) {
    throw new Error(`transition table moves ${saga.state} back to ${outcome.saga.state}`);
  }
  return { applied: true, ...outcome };
}

/** The table's rows, for documentation and tests. */
export function transitionsOf(state: PaymentState): TriggerName[] {
  return Object.keys(TABLE[state]) as TriggerName[];
}
