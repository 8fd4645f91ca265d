import fc from 'fast-check';
import { PARTNER_EVENT_TYPES, type PartnerEventType } from '@comanda/contracts';
import { aSaga, sequentialIds, TEST_POLICY } from '../testing/payment-saga.builder';
import {
  decide,
  PAYMENT_STATES,
  STATE_RANK,
  TERMINAL_STATES,
  type PaymentEffect,
  type PaymentSaga,
  type PaymentTrigger,
} from './payment-state-machine';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);

function run(saga: PaymentSaga, trigger: PaymentTrigger, now = NOW, ids = sequentialIds()) {
  return decide(saga, trigger, now, TEST_POLICY, ids);
}

const event = (type: PartnerEventType, operationId: string): PaymentTrigger => ({
  kind: 'partner_event',
  type,
  operationId,
});

const sent = (effects: PaymentEffect[]) =>
  effects.filter((effect) => effect.kind === 'send').map((effect) => effect.operationType);
const announced = (effects: PaymentEffect[]) =>
  effects.filter((effect) => effect.kind === 'announce').map((effect) => effect.event);

describe('payment state machine', () => {
  it('runs the full lifecycle: registration, authorization, placement, capture (rule 1)', () => {
    const ids = sequentialIds();
    let saga = aSaga().awaiting({ id: 'op-0', type: 'registration' }).build();
    let decision = decide(saga, event('registration_succeeded', 'op-0'), NOW, TEST_POLICY, ids);
    expect(decision.saga.state).toBe('authorization_pending');
    expect(sent(decision.effects)).toEqual(['authorization']);
    expect(announced(decision.effects)).toEqual(['registered']);
    expect(decision.saga.reservationExpiresAt).toEqual(at(TEST_POLICY.reservationTtlMs));
    saga = decision.saga;
    decision = decide(saga, event('authorization_succeeded', 'op-1'), NOW, TEST_POLICY, ids);
    expect(decision.saga.state).toBe('authorized');
    expect(announced(decision.effects)).toEqual(['authorized']);
    decision = decide(decision.saga, { kind: 'order_placed' }, NOW, TEST_POLICY, ids);
    expect(decision.saga.state).toBe('capturing');
    expect(sent(decision.effects)).toEqual(['capture']);
    decision = decide(decision.saga, event('capture_succeeded', 'op-2'), NOW, TEST_POLICY, ids);
    expect(decision.saga.state).toBe('captured');
    expect(announced(decision.effects)).toEqual(['captured']);
  });

  it('annuls once when placement fails after authorization (rule 2)', () => {
    const saga = aSaga().in('authorized').awaiting(null).build();
    const first = run(saga, { kind: 'order_placement_failed', reason: 'pos down' });
    expect(first.saga.state).toBe('annulling');
    expect(sent(first.effects)).toEqual(['annulment']);
    const again = run(first.saga, { kind: 'order_placement_failed', reason: 'pos down' });
    expect(again.applied).toBe(false);
    expect(again.effects).toEqual([]);
  });

  it.each(['registration', 'authorization', 'capture'] as const)(
    'fails the payment and annuls when no %s event arrives in time (rules 3 and 4)',
    (type) => {
      const saga = aSaga()
        .in(
          type === 'registration'
            ? 'registration_pending'
            : type === 'authorization'
              ? 'authorization_pending'
              : 'capturing',
        )
        .awaiting({ id: 'op-x', type })
        .build();
      const decision = run(saga, { kind: 'operation_timed_out', operationId: 'op-x' });
      expect(decision.saga.state).toBe('annulling');
      expect(decision.saga.failureReason).toBe(`${type}_timed_out`);
      expect(announced(decision.effects)).toEqual(['failed']);
      expect(sent(decision.effects)).toEqual(['annulment']);
    },
  );

  it.each(['registration_failed', 'registration_cancelled'] as const)(
    'fails the payment without an annulment on %s',
    (type) => {
      const saga = aSaga().awaiting({ id: 'op-r', type: 'registration' }).build();
      const decision = run(saga, {
        kind: 'partner_event',
        type,
        operationId: 'op-r',
        reason: 'declined',
      });
      expect(decision.saga.state).toBe('failed');
      expect(decision.saga.failureReason).toBe(`${type}: declined`);
      expect(announced(decision.effects)).toEqual(['failed']);
      expect(sent(decision.effects)).toEqual([]);
    },
  );

  it('fails at once when the partner rejects the operation with 400 (rule 7)', () => {
    const saga = aSaga().awaiting({ id: 'op-r', type: 'registration' }).build();
    const decision = run(saga, { kind: 'operation_rejected', operationId: 'op-r', reason: '400' });
    expect(decision.saga.state).toBe('failed');
    expect(announced(decision.effects)).toEqual(['failed']);
  });

  it('retries capture per the delays, then annuls once when the reservation expires (rule 6)', () => {
    const expiry = at(1_000_000);
    let saga = aSaga()
      .in('capturing')
      .awaiting({ id: 'c-1', type: 'capture' })
      .reservationUntil(expiry)
      .build();
    const ids = sequentialIds('c-retry');
    let decision = decide(saga, event('capture_failed', 'c-1'), NOW, TEST_POLICY, ids);
    expect(decision.effects).toEqual([{ kind: 'schedule_capture_retry', at: at(60_000) }]);
    decision = decide(decision.saga, { kind: 'capture_retry_due' }, at(60_000), TEST_POLICY, ids);
    expect(sent(decision.effects)).toEqual(['capture']);
    const retryId = decision.saga.pending?.id ?? '';
    decision = decide(
      decision.saga,
      event('capture_failed', retryId),
      at(61_000),
      TEST_POLICY,
      ids,
    );
    expect(decision.effects).toEqual([{ kind: 'schedule_capture_retry', at: at(361_000) }]);
    decision = decide(decision.saga, { kind: 'capture_retry_due' }, at(361_000), TEST_POLICY, ids);
    decision = decide(
      decision.saga,
      event('capture_failed', decision.saga.pending?.id ?? ''),
      at(362_000),
      TEST_POLICY,
      ids,
    );
    // Delays exhausted: the payment waits for the reservation to expire.
    expect(decision.effects).toEqual([]);
    expect(decision.saga.state).toBe('capturing');
    saga = decision.saga;
    decision = decide(saga, { kind: 'reservation_expired' }, expiry, TEST_POLICY, ids);
    expect(decision.saga.state).toBe('annulling');
    expect(sent(decision.effects)).toEqual(['annulment']);
    const late = decide(decision.saga, { kind: 'capture_retry_due' }, expiry, TEST_POLICY, ids);
    expect(late.applied).toBe(false);
  });

  it('never schedules a capture retry at or after the reservation expiry', () => {
    const saga = aSaga()
      .in('capturing')
      .awaiting({ id: 'c-1', type: 'capture' })
      .reservationUntil(at(30_000))
      .build();
    const decision = run(saga, event('capture_failed', 'c-1'));
    expect(decision.effects).toEqual([]);
    expect(decision.saga.captureFailures).toBe(1);
  });

  it('annuls when capture fails after the reservation expired', () => {
    const saga = aSaga()
      .in('capturing')
      .awaiting({ id: 'c-1', type: 'capture' })
      .reservationUntil(NOW)
      .build();
    const expired = run(saga, { kind: 'reservation_expired' });
    expect(expired.applied).toBe(false);
    const decision = run(saga, event('capture_failed', 'c-1'));
    expect(decision.saga.state).toBe('annulling');
  });

  it('ignores a duplicate of an event it already applied', () => {
    const saga = aSaga().awaiting({ id: 'op-r', type: 'registration' }).build();
    const first = run(saga, event('registration_succeeded', 'op-r'));
    const duplicate = run(first.saga, event('registration_succeeded', 'op-r'));
    expect(duplicate.applied).toBe(false);
    expect(duplicate.saga).toEqual(first.saga);
  });

  it('ignores an event of another operation type with the awaited operation id', () => {
    const saga = aSaga().in('capturing').awaiting({ id: 'c-1', type: 'capture' }).build();
    const decision = run(saga, event('annulment_succeeded', 'c-1'));
    expect(decision.applied).toBe(false);
  });

  it('ignores a late success for an operation that already timed out', () => {
    const saga = aSaga().awaiting({ id: 'op-r', type: 'registration' }).build();
    const timedOut = run(saga, { kind: 'operation_timed_out', operationId: 'op-r' });
    const late = run(timedOut.saga, event('registration_succeeded', 'op-r'));
    expect(late.applied).toBe(false);
    expect(late.saga.state).toBe('annulling');
  });

  it('never captures a failed payment, whatever arrives next', () => {
    const saga = aSaga().in('failed').awaiting(null).build();
    for (const trigger of [{ kind: 'order_placed' }, { kind: 'capture_retry_due' }] as const) {
      expect(run(saga, trigger).effects).toEqual([]);
    }
  });

  it('leaves every terminal state alone', () => {
    for (const state of PAYMENT_STATES.filter((s) => TERMINAL_STATES.has(s))) {
      const saga = aSaga().in(state).awaiting(null).build();
      expect(run(saga, { kind: 'reservation_expired' }).applied).toBe(false);
      expect(run(saga, { kind: 'order_placement_failed', reason: 'x' }).applied).toBe(false);
    }
  });
});

describe('payment state machine under random partner behaviour (property)', () => {
  const triggerArb = (ids: string[]): fc.Arbitrary<PaymentTrigger> =>
    fc.oneof(
      fc.record({
        kind: fc.constant('partner_event' as const),
        type: fc.constantFrom(...PARTNER_EVENT_TYPES),
        operationId: fc.constantFrom(...ids),
      }),
      fc.record({
        kind: fc.constant('operation_timed_out' as const),
        operationId: fc.constantFrom(...ids),
      }),
      fc.record({
        kind: fc.constant('operation_rejected' as const),
        operationId: fc.constantFrom(...ids),
        reason: fc.constant('400'),
      }),
      fc.constant<PaymentTrigger>({ kind: 'order_placed' }),
      fc.constant<PaymentTrigger>({ kind: 'order_placement_failed', reason: 'pos' }),
      fc.constant<PaymentTrigger>({ kind: 'capture_retry_due' }),
      fc.constant<PaymentTrigger>({ kind: 'reservation_expired' }),
    );

  it('never both fails and captures, never annuls twice, never moves backwards, never captures after failing', () => {
    // Operation ids the machine will hand out, so random events can name real operations.
    const ids = ['op-0', ...Array.from({ length: 12 }, (_, i) => `op-${i + 1}`)];
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(triggerArb(ids), fc.integer({ min: 1, max: 3 }), fc.nat(3 * 24 * 3_600_000)),
          { maxLength: 60 },
        ),
        (steps) => {
          const newId = sequentialIds();
          let saga = aSaga().awaiting({ id: 'op-0', type: 'registration' }).build();
          let annulments = 0;
          let captureSentAfterFailure = false;
          let elapsed = 0;
          for (const [trigger, copies, advance] of steps) {
            elapsed += advance;
            for (let copy = 0; copy < copies; copy++) {
              const decision = decide(saga, trigger, at(elapsed), TEST_POLICY, newId);
              expect(STATE_RANK[decision.saga.state]).toBeGreaterThanOrEqual(
                STATE_RANK[saga.state],
              );
              const operations = sent(decision.effects);
              annulments += operations.filter((type) => type === 'annulment').length;
              if (saga.failureReason !== null && operations.includes('capture'))
                captureSentAfterFailure = true;
              saga = decision.saga;
            }
          }
          expect(saga.failureReason !== null && saga.state === 'captured').toBe(false);
          expect(annulments).toBeLessThanOrEqual(1);
          expect(captureSentAfterFailure).toBe(false);
          if (saga.state === 'captured') expect(annulments).toBe(0);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
