import fc from 'fast-check';
import {
  PARTNER_EVENT_TYPES,
  PAYMENT_OPERATION_TYPES,
  type PartnerEventType,
} from '@comanda/contracts';
import { aSaga, sequentialIds, TEST_POLICY } from '../testing/payment-saga.builder';
import {
  decide,
  PAYMENT_STATES,
  STATE_RANK,
  TERMINAL_STATES,
  triggerName,
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
      const decision = run(saga, {
        kind: 'operation_timed_out',
        operationId: 'op-x',
        operationType: type,
        accepted: true,
      });
      expect(decision.saga.state).toBe('annulling');
      expect(decision.saga.failureReason).toBe(`${type}_timed_out`);
      // A reservation we never heard of ends one TTL from now at the latest: retries stop there.
      expect(decision.saga.reservationExpiresAt).toEqual(at(TEST_POLICY.reservationTtlMs));
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
    const decision = run(saga, {
      kind: 'operation_rejected',
      operationId: 'op-r',
      operationType: 'registration',
      reason: '400',
    });
    expect(decision.saga.state).toBe('failed');
    expect(announced(decision.effects)).toEqual(['failed']);
    // Nothing was registered: nothing to annul.
    expect(sent(decision.effects)).toEqual([]);
  });

  it('fails and annuls the registered transaction when the partner rejects the authorization with 400', () => {
    const saga = aSaga()
      .in('authorization_pending')
      .awaiting({ id: 'op-a', type: 'authorization' })
      .reservationUntil(at(600_000))
      .build();
    const decision = run(saga, {
      kind: 'operation_rejected',
      operationId: 'op-a',
      operationType: 'authorization',
      reason: '400',
    });
    expect(decision.saga.state).toBe('annulling');
    expect(decision.saga.failureReason).toBe('authorization_rejected: 400');
    expect(announced(decision.effects)).toEqual(['failed']);
    expect(sent(decision.effects)).toEqual(['annulment']);
  });

  it('fails without an annulment when the partner declines the authorization (it holds nothing)', () => {
    const saga = aSaga()
      .in('authorization_pending')
      .awaiting({ id: 'op-a', type: 'authorization' })
      .build();
    const decision = run(saga, event('authorization_failed', 'op-a'));
    expect(decision.saga.state).toBe('failed');
    expect(sent(decision.effects)).toEqual([]);
  });

  it('treats a capture the partner rejects with 400 as a failed capture: retried, then annulled at expiry', () => {
    const saga = aSaga()
      .in('capturing')
      .awaiting({ id: 'c-1', type: 'capture' })
      .reservationUntil(at(1_000_000))
      .build();
    const rejected = run(saga, {
      kind: 'operation_rejected',
      operationId: 'c-1',
      operationType: 'capture',
      reason: '400',
    });
    expect(rejected.saga.state).toBe('capturing');
    expect(rejected.saga.captureFailures).toBe(1);
    expect(rejected.effects).toEqual([{ kind: 'schedule_capture_retry', at: at(60_000) }]);
    const expired = run(rejected.saga, { kind: 'reservation_expired' }, at(1_000_000));
    expect(expired.saga.state).toBe('annulling');
    expect(sent(expired.effects)).toEqual(['annulment']);
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

  describe('a capture the partner never accepted, and late capture successes (ADR 0052)', () => {
    const capturing = () =>
      aSaga()
        .in('capturing')
        .awaiting({ id: 'c-1', type: 'capture' })
        .reservationUntil(at(1_000_000))
        .build();
    const SENT = new Set(['c-1', 'c-retry-1']);
    /** The first capture's deadline passed, the partner having accepted it or not. */
    const timedOut = (accepted: boolean) =>
      run(capturing(), {
        kind: 'operation_timed_out',
        operationId: 'c-1',
        operationType: 'capture',
        accepted,
      });
    /** `trigger` decided knowing the captures sent for the payment. */
    const knowingSent = (saga: PaymentSaga, trigger: PaymentTrigger) =>
      decide(saga, trigger, NOW, TEST_POLICY, () => 'x', SENT);

    it('retries a capture that timed out without a 2xx, as a failed one, instead of annulling', () => {
      const decision = timedOut(false);
      expect(decision.saga).toMatchObject({
        state: 'capturing',
        pending: null,
        captureFailures: 1,
      });
      expect(decision.effects).toEqual([{ kind: 'schedule_capture_retry', at: at(60_000) }]);
      expect(announced(decision.effects)).toEqual([]);
    });

    it('still fails and annuls a capture the partner accepted but never completed (rule 3)', () => {
      const decision = timedOut(true);
      expect(decision.saga.state).toBe('annulling');
      expect(announced(decision.effects)).toEqual(['failed']);
    });

    it('ends captured when an earlier capture succeeds late, while its retry waits or runs', () => {
      const waiting = run(capturing(), event('capture_failed', 'c-1')).saga;
      const late = knowingSent(waiting, event('capture_succeeded', 'c-1'));
      expect(late.saga).toMatchObject({ state: 'captured', pending: null });
      expect(late.effects).toEqual([
        { kind: 'announce', event: 'captured' },
        { kind: 'cancel_capture_retry' },
      ]);

      const retrying = { ...waiting, pending: { id: 'c-retry-1', type: 'capture' as const } };
      const early = knowingSent(retrying, event('capture_succeeded', 'c-1'));
      expect(early.saga.state).toBe('captured');
      const retryAnswer = event('capture_failed', 'c-retry-1');
      expect(knowingSent(early.saga, retryAnswer).applied).toBe(false);
    });

    it('takes no success of a capture it never sent, nor one once the payment is annulling', () => {
      const waiting = run(capturing(), event('capture_failed', 'c-1')).saga;
      const unknown = knowingSent(waiting, event('capture_succeeded', 'c-9'));
      expect(unknown.applied).toBe(false);
      const annulling = timedOut(true).saga;
      const late = knowingSent(annulling, event('capture_succeeded', 'c-1'));
      expect(late.applied).toBe(false);
    });
  });

  describe('a failed annulment (ADR 0042)', () => {
    const annulling = (expiry = at(1_000_000)) =>
      aSaga()
        .in('annulling')
        .awaiting({ id: 'a-1', type: 'annulment' })
        .lastAnnulment('a-1')
        .reservationUntil(expiry)
        .build();

    it.each([
      ['annulment_failed', event('annulment_failed', 'a-1')],
      [
        'annulment_rejected',
        {
          kind: 'operation_rejected',
          operationId: 'a-1',
          operationType: 'annulment',
          reason: '400',
        },
      ],
      [
        'annulment_timed_out',
        {
          kind: 'operation_timed_out',
          operationId: 'a-1',
          operationType: 'annulment',
          accepted: true,
        },
      ],
    ] as Array<[string, PaymentTrigger]>)(
      'is retried with a new operation after %s, while the reservation may still exist',
      (_name, trigger) => {
        const ids = sequentialIds('a-retry');
        const failed = decide(annulling(), trigger, NOW, TEST_POLICY, ids);
        expect(failed.saga).toMatchObject({ state: 'annulling', pending: null });
        expect(failed.saga.annulmentFailures).toBe(1);
        expect(failed.effects).toEqual([{ kind: 'schedule_annulment_retry', at: at(60_000) }]);
        const retried = decide(
          failed.saga,
          { kind: 'annulment_retry_due' },
          at(60_000),
          TEST_POLICY,
          ids,
        );
        expect(sent(retried.effects)).toEqual(['annulment']);
        expect(retried.saga.pending).toEqual({ id: 'a-retry-1', type: 'annulment' });
        expect(retried.saga.lastAnnulmentId).toBe('a-retry-1');
        const again = decide(
          retried.saga,
          { kind: 'annulment_retry_due' },
          at(60_000),
          TEST_POLICY,
          ids,
        );
        expect(again.applied).toBe(false);
        const done = decide(
          retried.saga,
          event('annulment_succeeded', 'a-retry-1'),
          at(61_000),
          TEST_POLICY,
          ids,
        );
        expect(done.saga.state).toBe('annulled');
        expect(announced(done.effects)).toEqual(['annulled']);
      },
    );

    it('ends annulment_failed once no retry falls before the reservation expires, and says so to the order', () => {
      const failed = run(annulling(at(30_000)), event('annulment_failed', 'a-1'));
      expect(failed.saga.state).toBe('annulment_failed');
      expect(failed.effects).toEqual([{ kind: 'announce', event: 'annulment_failed' }]);
    });

    it('ends annulment_failed once the retry delays are used up', () => {
      let saga = annulling();
      const ids = sequentialIds('a-retry');
      for (const retryAt of [at(60_000), at(361_000)]) {
        saga = decide(
          saga,
          event('annulment_failed', saga.pending?.id ?? ''),
          NOW,
          TEST_POLICY,
          ids,
        ).saga;
        saga = decide(saga, { kind: 'annulment_retry_due' }, retryAt, TEST_POLICY, ids).saga;
      }
      const last = decide(
        saga,
        event('annulment_failed', saga.pending?.id ?? ''),
        NOW,
        TEST_POLICY,
        ids,
      );
      expect(last.saga.state).toBe('annulment_failed');
      expect(last.saga.annulmentFailures).toBe(3);
      expect(announced(last.effects)).toEqual(['annulment_failed']);
    });

    it('ends annulled when the latest annulment succeeds after it timed out (not a move back)', () => {
      const saga = annulling(at(30_000));
      const timedOut = run(saga, {
        kind: 'operation_timed_out',
        operationId: 'a-1',
        operationType: 'annulment',
        accepted: true,
      });
      expect(timedOut.saga.state).toBe('annulment_failed');
      const late = run(timedOut.saga, event('annulment_succeeded', 'a-1'));
      expect(late.applied).toBe(true);
      expect(late.saga.state).toBe('annulled');
      expect(announced(late.effects)).toEqual(['annulled']);
      expect(run(late.saga, event('annulment_succeeded', 'a-1')).applied).toBe(false);
    });

    it('ends annulled when the failed annulment succeeds late while its retry waits', () => {
      const failed = run(annulling(), {
        kind: 'operation_timed_out',
        operationId: 'a-1',
        operationType: 'annulment',
        accepted: true,
      });
      const late = run(failed.saga, event('annulment_succeeded', 'a-1'));
      expect(late.saga.state).toBe('annulled');
      expect(late.effects).toContainEqual({ kind: 'cancel_annulment_retry' });
      expect(run(late.saga, { kind: 'annulment_retry_due' }).applied).toBe(false);
    });

    /** Annulment a-1 failed, and its retry a-retry-1 was sent. */
    const retrying = () => {
      const ids = sequentialIds('a-retry');
      const failed = decide(annulling(), event('annulment_failed', 'a-1'), NOW, TEST_POLICY, ids);
      return decide(failed.saga, { kind: 'annulment_retry_due' }, at(60_000), TEST_POLICY, ids)
        .saga;
    };
    const SENT = new Set(['a-1', 'a-retry-1']);

    it('ends annulled when an earlier annulment succeeds late while a newer one is in flight (ADR 0050)', () => {
      const saga = retrying();
      expect(saga.pending).toEqual({ id: 'a-retry-1', type: 'annulment' });
      const late = decide(
        saga,
        event('annulment_succeeded', 'a-1'),
        NOW,
        TEST_POLICY,
        () => 'x',
        SENT,
      );
      expect(late.applied).toBe(true);
      expect(late.saga).toMatchObject({ state: 'annulled', pending: null });
      expect(announced(late.effects)).toEqual(['annulled']);
      // The newer annulment's own answer changes nothing any more.
      const retryAnswer = event('annulment_failed', 'a-retry-1');
      expect(decide(late.saga, retryAnswer, NOW, TEST_POLICY, () => 'x', SENT).applied).toBe(false);
    });

    it('ends annulled when an earlier annulment succeeds late after the last one failed for good (ADR 0050)', () => {
      const gaveUp = decide(
        retrying(),
        event('annulment_failed', 'a-retry-1'),
        at(1_000_000),
        { ...TEST_POLICY, annulmentRetryDelaysMs: [60_000] },
        () => 'x',
      );
      expect(gaveUp.saga.state).toBe('annulment_failed');
      const late = decide(
        gaveUp.saga,
        event('annulment_succeeded', 'a-1'),
        NOW,
        TEST_POLICY,
        () => 'x',
        SENT,
      );
      expect(late.saga.state).toBe('annulled');
      expect(announced(late.effects)).toEqual(['annulled']);
    });

    it("ignores the success of an annulment this payment never sent, and any other operation's late event", () => {
      const saga = retrying();
      for (const trigger of [
        event('annulment_succeeded', 'another-payments-annulment'),
        event('capture_succeeded', 'a-1'),
        event('annulment_failed', 'a-1'),
      ] as PaymentTrigger[]) {
        expect(decide(saga, trigger, NOW, TEST_POLICY, () => 'x', SENT).applied).toBe(false);
      }
    });

    it('lets no other late event of the last annulment, or of an annulment it never sent, move the payment', () => {
      const timedOut = run(annulling(at(30_000)), {
        kind: 'operation_timed_out',
        operationId: 'a-1',
        operationType: 'annulment',
        accepted: true,
      });
      for (const trigger of [
        event('annulment_failed', 'a-1'),
        {
          kind: 'operation_rejected',
          operationId: 'a-1',
          operationType: 'annulment',
          reason: '400',
        },
        event('capture_succeeded', 'a-1'),
        event('annulment_succeeded', 'an-annulment-never-sent'),
      ] as PaymentTrigger[]) {
        expect(run(timedOut.saga, trigger).applied).toBe(false);
      }
    });
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

  it('names a late 400 by its own operation, not by the one the payment waits for', () => {
    // The partner reported the registration's success, then answered its request with 400.
    const saga = aSaga()
      .in('authorization_pending')
      .awaiting({ id: 'op-a', type: 'authorization' })
      .build();
    const late: PaymentTrigger = {
      kind: 'operation_rejected',
      operationId: 'op-r',
      operationType: 'registration',
      reason: '400',
    };
    const decision = run(saga, late);
    expect(decision.applied).toBe(false);
    expect(decision.saga).toBe(saga);
    expect(triggerName(late)).toBe('registration_rejected');
  });

  it('ignores a late success for an operation that already timed out', () => {
    const saga = aSaga().awaiting({ id: 'op-r', type: 'registration' }).build();
    const timedOut = run(saga, {
      kind: 'operation_timed_out',
      operationId: 'op-r',
      operationType: 'registration',
      accepted: true,
    });
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
        operationType: fc.constantFrom(...PAYMENT_OPERATION_TYPES),
        accepted: fc.boolean(),
      }),
      fc.record({
        kind: fc.constant('operation_rejected' as const),
        operationId: fc.constantFrom(...ids),
        operationType: fc.constantFrom(...PAYMENT_OPERATION_TYPES),
        reason: fc.constant('400'),
      }),
      fc.constant<PaymentTrigger>({ kind: 'order_placed' }),
      fc.constant<PaymentTrigger>({ kind: 'order_placement_failed', reason: 'pos' }),
      fc.constant<PaymentTrigger>({ kind: 'capture_retry_due' }),
      fc.constant<PaymentTrigger>({ kind: 'annulment_retry_due' }),
      fc.constant<PaymentTrigger>({ kind: 'reservation_expired' }),
    );

  it('never both fails and captures, never runs two annulments at once, never moves backwards, never captures after failing', () => {
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
          let annulmentWhileOneWasPending = false;
          let annulmentAfterAnnulled = false;
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
              if (operations.includes('annulment')) {
                if (saga.pending?.type === 'annulment') annulmentWhileOneWasPending = true;
                if (saga.state === 'annulled') annulmentAfterAnnulled = true;
              }
              if (saga.failureReason !== null && operations.includes('capture'))
                captureSentAfterFailure = true;
              saga = decision.saga;
            }
          }
          expect(saga.failureReason !== null && saga.state === 'captured').toBe(false);
          // The first, then one retry per annulment failure at most.
          expect(annulments).toBeLessThanOrEqual(1 + TEST_POLICY.annulmentRetryDelaysMs.length);
          expect(annulmentWhileOneWasPending).toBe(false);
          expect(annulmentAfterAnnulled).toBe(false);
          expect(captureSentAfterFailure).toBe(false);
          if (saga.state === 'captured') expect(annulments).toBe(0);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
