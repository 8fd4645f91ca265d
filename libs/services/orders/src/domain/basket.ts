import { LIMITS } from './limits';
import type { Discount, OrderItem } from './order';
import { BasketFullError, DiscountExistsError, DiscountTargetError } from './order.errors';

/**
 * Checks a loyalty discount against the basket's items (menu lines and charge items):
 * each amount names an item and one of its units, and no unit is discounted below zero.
 */
export function checkDiscount(items: OrderItem[], existing: Discount[], discount: Discount): void {
  if (existing.some((applied) => applied.id === discount.id)) {
    throw new DiscountExistsError(discount.id);
  }
  if (existing.length >= LIMITS.discounts) throw new BasketFullError('discounts', LIMITS.discounts);
  const discountedPerUnit = new Map<string, number>();
  for (const applied of [...existing, discount]) {
    for (const amount of applied.amounts) {
      const key = `${amount.itemId}\u0000${amount.unitId}`;
      discountedPerUnit.set(key, (discountedPerUnit.get(key) ?? 0) + amount.value);
    }
  }
  for (const amount of discount.amounts) {
    const item = items.find((candidate) => candidate.id === amount.itemId);
    if (!item) throw new DiscountTargetError(`The basket has no item "${amount.itemId}".`);
    if (!item.units.some((unit) => unit.id === amount.unitId)) {
      throw new DiscountTargetError(`Item "${amount.itemId}" has no unit "${amount.unitId}".`);
    }
    const total = discountedPerUnit.get(`${amount.itemId}\u0000${amount.unitId}`) ?? 0;
    if (total > item.unitPrice) {
      throw new DiscountTargetError(
        `Unit "${amount.unitId}" of item "${amount.itemId}" costs ${item.unitPrice}; discounts on it may not exceed that.`,
      );
    }
  }
}
