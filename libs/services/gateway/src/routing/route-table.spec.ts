import { owningUpstream } from './route-table';

describe('route table', () => {
  it.each([
    '/event-subscriptions',
    '/event-subscriptions/6f1c7d1e-0000-4000-8000-000000000001',
    '/event-subscriptions/6f1c7d1e-0000-4000-8000-000000000001/deliveries',
    '/event-subscriptions/s/deliveries/d/redeliver',
  ])('sends webhook subscription path %s to the orders service', (path) =>
    expect(owningUpstream(path)).toBe('orders'),
  );

  it('does not take paths that only start with the same letters', () => {
    expect(owningUpstream('/event-subscriptionsx')).toBeUndefined();
    expect(owningUpstream('/event')).toBeUndefined();
  });
});
