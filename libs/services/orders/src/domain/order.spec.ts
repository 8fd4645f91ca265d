import { anOrder } from '../testing/order.builder';
import { LIMITS } from './limits';
import {
  isFinalized,
  move,
  nextStatus,
  ORDER_STATUSES,
  recordRepeated,
  type OrderTrigger,
} from './order';
import { OrderAlreadyFinalizedError, OrderNotReadyError } from './order.errors';

const NOW = new Date('2026-11-23T18:00:00Z');

describe('the order placement state table', () => {
  it('open basket → checkout closes the order (ready) or waits for payment', () => {
    expect(anOrder().ready().build().status).toBe('ready');
    expect(nextStatus('awaiting_payment', 'payment_authorized')).toBe('ready');
  });

  it.each<[string, OrderTrigger, string]>([
    ['ready', 'pos_placed', 'placed'],
    ['placing', 'pos_placed', 'placed'],
    ['ready', 'pos_failed', 'failed'],
    ['placing', 'pos_failed', 'failed'],
    ['placing', 'placement_timeout', 'failed'],
    ['ready', 'pickup_timeout', 'failed'],
    ['ready', 'session_started', 'placing'],
    ['placing', 'session_started', 'placing'],
    ['awaiting_payment', 'payment_failed', 'failed'],
    ['ready', 'payment_failed', 'failed'],
    ['placing', 'payment_failed', 'failed'],
  ])('closed (%s) --%s--> %s, finalized when placed or failed', (from, trigger, to) => {
    const order = anOrder()
      .withStatus(from as never)
      .build();
    expect(move(order, trigger, NOW)).toBe(to);
    expect(order.finalizedAt !== null).toBe(isFinalized(order.status));
    expect(order.timeline.at(-1)).toMatchObject({ type: trigger, status: to });
  });

  it.each(['placed', 'failed'] as const)(
    'finalized (%s) --pos/placed or pos/failed--> unchanged, answered 405',
    (status) => {
      for (const trigger of ['pos_placed', 'pos_failed'] as const) {
        const order = anOrder().withStatus(status).build();
        expect(() => move(order, trigger, NOW)).toThrow(OrderAlreadyFinalizedError);
        expect(order.status).toBe(status);
      }
    },
  );

  it('a timeout after finalization has nothing to do', () => {
    for (const status of ['placed', 'failed'] as const) {
      expect(nextStatus(status, 'placement_timeout')).toBeUndefined();
      expect(nextStatus(status, 'pickup_timeout')).toBeUndefined();
    }
    expect(nextStatus('placing', 'pickup_timeout')).toBeUndefined();
  });

  it('refuses a session on an order waiting for payment or failed (409)', () => {
    for (const status of ['awaiting_payment', 'failed', 'placed'] as const) {
      const order = anOrder().withStatus(status).build();
      expect(() => move(order, 'session_started', NOW)).toThrow(OrderNotReadyError);
    }
  });

  it('never moves a finalized order anywhere', () => {
    for (const status of ORDER_STATUSES.filter(isFinalized)) {
      for (const trigger of [
        'payment_authorized',
        'payment_failed',
        'session_started',
        'pos_placed',
        'pos_failed',
        'placement_timeout',
        'pickup_timeout',
      ] as const) {
        expect(nextStatus(status, trigger)).toBeUndefined();
      }
    }
  });
});

describe('calls that change nothing, in the timeline', () => {
  const LATER = new Date('2026-11-23T18:05:00Z');

  it('counts the same call right after itself on one entry', () => {
    const order = anOrder().ready().build();
    const before = order.timeline.length;
    for (let i = 0; i < 30; i += 1) {
      recordRepeated(order, 'callback_refused', i === 29 ? LATER : NOW, { callback: 'pos/placed' });
    }
    expect(order.timeline).toHaveLength(before + 1);
    expect(order.timeline.at(-1)?.detail).toEqual({
      callback: 'pos/placed',
      repeats: 30,
      lastAt: LATER.toISOString(),
    });
  });

  it('writes a new entry for another call, up to a bound, then only counts', () => {
    const order = anOrder().ready().build();
    const before = order.timeline.length;
    for (let i = 0; i < 100; i += 1) {
      recordRepeated(order, 'callback_refused', NOW, {
        callback: i % 2 === 0 ? 'pos/placed' : 'pos/failed',
      });
    }
    const refused = order.timeline.slice(before);
    expect(refused).toHaveLength(LIMITS.repeatedCallEntries);
    const counted = refused.reduce(
      (sum, entry) => sum + (typeof entry.detail?.repeats === 'number' ? entry.detail.repeats : 1),
      0,
    );
    expect(counted).toBe(100);
  });
});
