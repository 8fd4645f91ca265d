import { LIMITS } from './limits';
import type { Discount, OrderItem } from './order';
import { BasketFullError, DiscountExistsError, DiscountTargetError } from './order.errors';

/**
 * Checks a loyalty discount against the basket's items (menu lines and charge items) and
 * the discounts already on it: see `checkDiscountAmounts`.
 */
export function checkDiscount(items: OrderItem[], existing: Discount[], discount: Discount): void {
  if (existing.some((applied) => applied.id === discount.id)) {
    throw new DiscountExistsError(discount.id);
  }
  if (existing.length >= LIMITS.discounts) throw new BasketFullError('discounts', LIMITS.discounts);
  checkDiscountAmounts(items, [...existing, discount]);
}

/**
 * Each amount of the discounts names an item of `items` and one of its units, and no unit is
 * discounted below zero. Run when a discount is added and again at checkout, where the
 * charge items are priced anew: a delivery fee lowered or removed since must not leave a
 * discount on it that takes more than it costs, or names an item the order does not have.
 */
export function checkDiscountAmounts(items: OrderItem[], discounts: Discount[]): void {
  const discountedPerUnit = new Map<string, number>();
  for (const discount of discounts) {
    for (const amount of discount.amounts) {
      const key = `${amount.itemId}\u0000${amount.unitId}`;
      discountedPerUnit.set(key, (discountedPerUnit.get(key) ?? 0) + amount.value);
    }
  }
  for (const discount of discounts) {
    for (const amount of discount.amounts) {
      const item = items.find((candidate) => candidate.id === amount.itemId);
      const on = `Discount "${discount.id}"`;
      if (!item) throw new DiscountTargetError(`${on}: the basket has no item "${amount.itemId}".`);
      if (!item.units.some((unit) => unit.id === amount.unitId)) {
        throw new DiscountTargetError(
          `${on}: item "${amount.itemId}" has no unit "${amount.unitId}".`,
        );
      }
      const total = discountedPerUnit.get(`${amount.itemId}\u0000${amount.unitId}`) ?? 0;
      if (total > item.unitPrice) {
        throw new DiscountTargetError(
          `${on}: unit "${amount.unitId}" of item "${amount.itemId}" costs ${item.unitPrice}; discounts on it may not exceed that.`,
        );
      }
    }
  }
}
