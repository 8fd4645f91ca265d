import type { EventType, NewEvent } from '@comanda/contracts';
import type { OutboxWriter } from '@comanda/messaging';
import type { Tx } from '@comanda/persistence';
import type { OrderEntity } from '../persistence/order.entity';
import { OrderAnnouncer } from './order-announcer';

/** The writer's two entry points, recording each call (the SQL is OutboxWriter's own test). */
function recordingWriter() {
  const calls: Array<{ via: 'add' | 'addAll'; types: string[] }> = [];
  const writer = {
    add: (_tx: Tx, event: NewEvent<EventType>) => {
      calls.push({ via: 'add', types: [event.type] });
      return Promise.resolve();
    },
    addAll: (_tx: Tx, events: readonly NewEvent<EventType>[]) => {
      calls.push({ via: 'addAll', types: events.map((event) => event.type) });
      return Promise.resolve([]);
    },
  };
  return { calls, writer: writer as unknown as OutboxWriter };
}

const order = {
  id: 'a7c1e9d2-5b3f-4e8a-9c6d-1f2e3a4b5c6d',
  tenantId: 'pizzeria',
  basketId: 'b1',
  storeId: 'main-street',
  totals: { total: 1850, currency: 'EUR' },
  paymentRequest: null,
  requestedReadyTime: null,
} as unknown as OrderEntity;

describe('OrderAnnouncer.together', () => {
  const tx = {} as Tx;

  it('writes the events announced inside it once, in one call, in their order', async () => {
    const { calls, writer } = recordingWriter();
    const announcer = new OrderAnnouncer(writer);

    await announcer.together(tx, async () => {
      await announcer.checkedOut(tx, order);
      expect(calls).toEqual([]);
      await announcer.together(tx, () => announcer.readyToBePlaced(tx, order));
      expect(calls).toEqual([]);
    });

    expect(calls).toEqual([
      { via: 'addAll', types: ['basket.checked_out', 'order.ready_to_be_placed_in_pos'] },
    ]);
  });

  it('writes nothing when the work throws, and each event at once outside it', async () => {
    const { calls, writer } = recordingWriter();
    const announcer = new OrderAnnouncer(writer);

    await expect(
      announcer.together(tx, async () => {
        await announcer.checkedOut(tx, order);
        throw new Error('basket vanished');
      }),
    ).rejects.toThrow('basket vanished');
    await announcer.readyToBePlaced(tx, order);

    expect(calls).toEqual([{ via: 'add', types: ['order.ready_to_be_placed_in_pos'] }]);
  });
});
