import { chargeItemsFrom } from './charge-items';

describe('charge items from the order-charges config', () => {
  const values = {
    deliveryFee: { title: 'Delivery', amount: 500, mappingDetails: { code: '007' } },
    serviceCharge: { title: 'Service', amount: 150, mappingDetails: {} },
  };

  it('charges the delivery fee only for delivery, the service charge always, each once at its amount', () => {
    expect(chargeItemsFrom(values, 'pickup').map((item) => item.type)).toEqual(['serviceCharge']);
    const delivery = chargeItemsFrom(values, 'delivery');
    expect(delivery.map((item) => [item.type, item.quantity, item.unitPrice])).toEqual([
      ['deliveryFee', 1, 500],
      ['serviceCharge', 1, 150],
    ]);
    expect(delivery[0].mappingDetails).toEqual({ code: '007' });
    expect(delivery[0].units).toHaveLength(1);
  });

  it('leaves out an entry that is not {title, amount, mappingDetails} (one saved before the config store refused such entries)', () => {
    expect(chargeItemsFrom({ serviceCharge: { title: 'x', amount: -1 } }, 'pickup')).toEqual([]);
    expect(
      chargeItemsFrom(
        { serviceCharge: { title: 'x', amount: 1, mappingDetails: { a: 1 } } },
        'pickup',
      ),
    ).toEqual([]);
    expect(chargeItemsFrom(undefined, 'delivery')).toEqual([]);
  });
});
