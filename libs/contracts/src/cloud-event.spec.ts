import { assertCloudEvent, createCloudEvent, routingKeyOf } from './cloud-event';
import { EventPayloads, EventTypes } from './event-catalogue';

describe('CloudEvents envelope', () => {
  const event = createCloudEvent(
    '/comanda/orders',
    {
      type: EventTypes.OrderReadyToBePlacedInPos,
      tenantId: 'tenant-a',
      subject: 'order-1',
      data: { orderId: 'order-1', storeId: 'store-1' },
    },
    new Date('2026-01-02T03:04:05.000Z'),
  );

  it('carries every CloudEvents 1.0 attribute plus tenantid', () => {
    expect(event).toMatchObject({
      specversion: '1.0',
      source: '/comanda/orders',
      type: 'order.ready_to_be_placed_in_pos',
      time: '2026-01-02T03:04:05.000Z',
      subject: 'order-1',
      datacontenttype: 'application/json',
      tenantid: 'tenant-a',
    });
    expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('routes by event type then tenant id', () => {
    expect(routingKeyOf(event)).toBe('order.ready_to_be_placed_in_pos.tenant-a');
  });

  it('gives each event its own id', () => {
    const again = createCloudEvent('/comanda/orders', {
      type: EventTypes.OrderReadyToBePlacedInPos,
      tenantId: 'tenant-a',
      subject: 'order-1',
      data: event.data,
    });
    expect(again.id).not.toBe(event.id);
  });

  it('accepts a decoded envelope and rejects one without tenantid', () => {
    expect(() => assertCloudEvent(JSON.parse(JSON.stringify(event)))).not.toThrow();
    const withoutTenant: Partial<typeof event> = { ...event };
    delete withoutTenant.tenantid;
    expect(() => assertCloudEvent(withoutTenant)).toThrow('tenantid');
    expect(() => assertCloudEvent('not json')).toThrow('not a CloudEvents JSON object');
  });

  it('names every catalogued type with a payload type', () => {
    const payloadKeys: Array<keyof EventPayloads> = Object.values(EventTypes);
    expect(new Set(payloadKeys).size).toBe(Object.keys(EventTypes).length);
  });
});
