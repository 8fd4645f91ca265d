import { orderChargeDefinition, orderChargesProblems } from './order-charges';

describe('the order-charges config shape', () => {
  const fee = { title: 'Delivery', amount: 500, mappingDetails: { 'fee.code': '0099' } };

  it('finds nothing wrong with charges of the documented shape, absent or null ones, or other members', () => {
    expect(
      orderChargesProblems({ deliveryFee: fee, serviceCharge: { ...fee, amount: 0 } }),
    ).toEqual([]);
    expect(orderChargesProblems({})).toEqual([]);
    expect(orderChargesProblems({ deliveryFee: null, tip: 'anything', other: { a: 1 } })).toEqual(
      [],
    );
    // Mapping details may be left out (or null): a charge without any.
    expect(orderChargesProblems({ serviceCharge: { title: 'Service', amount: 150 } })).toEqual([]);
    expect(orderChargeDefinition({ title: 'Service', amount: 150, mappingDetails: null })).toEqual({
      title: 'Service',
      amount: 150,
      mappingDetails: {},
    });
    expect(orderChargeDefinition(fee)).toEqual(fee);
  });

  it('names each member at fault, by its path in the config', () => {
    expect(
      orderChargesProblems({
        deliveryFee: { ...fee, mappingDetails: { 'fee.code': 99 } },
        serviceCharge: { title: '', amount: 1.5 },
      }),
    ).toEqual([
      {
        path: 'values.deliveryFee.mappingDetails',
        message: 'the value of "fee.code" must be a string',
      },
      { path: 'values.serviceCharge.title', message: expect.stringMatching(/1 to 200 characters/) },
      { path: 'values.serviceCharge.amount', message: expect.stringMatching(/integer/) },
    ]);
    expect(orderChargesProblems({ serviceCharge: 'free' })).toEqual([
      { path: 'values.serviceCharge', message: expect.stringMatching(/must be an object/) },
    ]);
    expect(orderChargesProblems({ deliveryFee: [fee] })).toHaveLength(1);
    for (const amount of [-1, 100_000_001, '500', Number.NaN]) {
      expect(orderChargesProblems({ deliveryFee: { ...fee, amount } })).toEqual([
        { path: 'values.deliveryFee.amount', message: expect.any(String) },
      ]);
    }
  });

  it('defines no charge from an entry it finds fault with', () => {
    expect(orderChargeDefinition({ ...fee, mappingDetails: { a: 1 } })).toBeUndefined();
    expect(orderChargeDefinition({ title: 'x', amount: -1 })).toBeUndefined();
    expect(orderChargeDefinition(null)).toBeUndefined();
    expect(orderChargeDefinition(undefined)).toBeUndefined();
  });
});
