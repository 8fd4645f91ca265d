import { checkDiscount } from './basket';
import { totalsOf, type OrderItem } from './order';
import { DiscountExistsError, DiscountTargetError } from './order.errors';

const burger: OrderItem = {
  id: 'line-1',
  type: 'menuItem',
  menuItemId: 'burger',
  title: 'Burger',
  quantity: 2,
  unitPrice: 1850,
  units: [{ id: 'u1' }, { id: 'u2' }],
  mappingDetails: {},
};
const fee: OrderItem = {
  id: 'delivery-fee',
  type: 'deliveryFee',
  title: 'Delivery',
  quantity: 1,
  unitPrice: 500,
  units: [{ id: 'delivery-fee-1' }],
  mappingDetails: {},
};
const discount = (id: string, itemId: string, unitId: string, value: number) => ({
  id,
  title: id,
  mappingDetails: {},
  amounts: [{ itemId, unitId, value }],
});

describe('loyalty discounts on a basket', () => {
  it('takes amounts that name an item and one of its units, menu line or charge item', () => {
    expect(() =>
      checkDiscount([burger, fee], [], discount('d', 'line-1', 'u2', 925)),
    ).not.toThrow();
    expect(() =>
      checkDiscount([burger, fee], [], discount('d', 'delivery-fee', 'delivery-fee-1', 500)),
    ).not.toThrow();
  });

  it('refuses an unknown item, a unit of another item, and a second discount with the same id', () => {
    expect(() => checkDiscount([burger], [], discount('d', 'nope', 'u1', 1))).toThrow(
      DiscountTargetError,
    );
    expect(() =>
      checkDiscount([burger, fee], [], discount('d', 'line-1', 'delivery-fee-1', 1)),
    ).toThrow(DiscountTargetError);
    const applied = discount('d', 'line-1', 'u1', 1);
    expect(() => checkDiscount([burger], [applied], discount('d', 'line-1', 'u2', 1))).toThrow(
      DiscountExistsError,
    );
  });

  it('never takes a unit below zero, counting the discounts already applied', () => {
    const applied = discount('a', 'line-1', 'u1', 1000);
    expect(() => checkDiscount([burger], [applied], discount('b', 'line-1', 'u1', 851))).toThrow(
      DiscountTargetError,
    );
    expect(() =>
      checkDiscount([burger], [applied], discount('b', 'line-1', 'u1', 850)),
    ).not.toThrow();
  });
});

describe('totals in minor units', () => {
  it('sums menu items and charge items apart and takes the discounts off', () => {
    expect(totalsOf([burger, fee], [discount('d', 'line-1', 'u1', 925)], 'CHF')).toEqual({
      currency: 'CHF',
      items: 3700,
      charges: 500,
      discounts: 925,
      total: 3275,
    });
  });
});
