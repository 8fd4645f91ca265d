import { behaviourOf } from './payment-method-tokens';
import { decide } from './sandbox-transaction';

describe('the sandbox transaction', () => {
  it('moves through the full lifecycle on success', () => {
    expect(decide('new', 'registration', 'sandbox_success')).toEqual({
      event: { type: 'registration_succeeded' },
      next: 'registered',
    });
    expect(decide('registered', 'authorization', 'sandbox_success').next).toBe('authorized');
    expect(decide('authorized', 'capture', 'sandbox_success').next).toBe('captured');
  });

  it('accepts capture on an annulled transaction and fails it (rule 5)', () => {
    expect(decide('annulled', 'capture', 'sandbox_success')).toEqual({
      event: { type: 'capture_failed', reason: 'transaction_annulled' },
      next: 'annulled',
    });
  });

  it('annuls a sandbox_reservation_lapsed transaction itself after authorization, so capture fails (rule 5)', () => {
    expect(decide('registered', 'authorization', 'sandbox_reservation_lapsed')).toEqual({
      event: { type: 'authorization_succeeded' },
      next: 'annulled',
    });
    expect(decide('annulled', 'capture', 'sandbox_reservation_lapsed')).toEqual({
      event: { type: 'capture_failed', reason: 'transaction_annulled' },
      next: 'annulled',
    });
    expect(decide('annulled', 'annulment', 'sandbox_reservation_lapsed')).toEqual({
      event: { type: 'annulment_succeeded', reason: 'reservation_lapsed' },
      next: 'annulled',
    });
  });

  it('keeps an authorized transaction authorized while capture keeps failing', () => {
    expect(decide('authorized', 'capture', 'sandbox_capture_failing')).toEqual({
      event: { type: 'capture_failed', reason: 'capture_declined' },
      next: 'authorized',
    });
    expect(decide('authorized', 'annulment', 'sandbox_capture_failing').next).toBe('annulled');
  });

  it('never annuls twice nor annuls a capture', () => {
    expect(decide('annulled', 'annulment', 'sandbox_success').event?.type).toBe('annulment_failed');
    expect(decide('captured', 'annulment', 'sandbox_success').event?.type).toBe('annulment_failed');
  });

  it('releases nothing, successfully, for an aborted registration (rule 4, then rule 3)', () => {
    // A payment whose registration never reached the partner (a fault audit: blackholed posts,
    // then the annulment after the timeout): released, and closed to a late registration.
    expect(decide('new', 'annulment', 'sandbox_success')).toEqual({
      event: { type: 'annulment_succeeded', reason: 'nothing_reserved' },
      next: 'annulled',
    });
    expect(decide('annulled', 'registration', 'sandbox_success').event?.type).toBe(
      'registration_failed',
    );
    expect(decide('aborted', 'annulment', 'sandbox_success')).toEqual({
      event: { type: 'annulment_succeeded', reason: 'nothing_reserved' },
      next: 'aborted',
    });
  });

  it('changes state but sends nothing for a silent operation', () => {
    expect(decide('registered', 'authorization', 'sandbox_no_event_authorization')).toEqual({
      next: 'authorized',
    });
    expect(decide('registered', 'capture', 'sandbox_no_event_authorization').event?.type).toBe(
      'capture_failed',
    );
  });

  it('reads a token with its own delay, and treats unknown methods as success', () => {
    expect(behaviourOf('sandbox_capture_failing;delay=1500')).toEqual({
      token: 'sandbox_capture_failing',
      delayMs: 1500,
    });
    expect(behaviourOf('visa-4242')).toEqual({ token: 'sandbox_success' });
  });
});
