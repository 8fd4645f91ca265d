import { chargeItemsFrom } from '../../domain/charge-items';
import { totalsOf, type OrderItem, type Totals } from '../../domain/order';
import type { BasketEntity } from '../../persistence/basket.entity';

/** A basket with everything it would cost now: its lines, the tenant's charges, totals. */
export interface PricedBasket {
  basket: BasketEntity;
  currency: string;
  /** Menu lines, then charge items. */
  items: OrderItem[];
  totals: Totals;
}

export function priceBasket(
  basket: BasketEntity,
  currency: string,
  chargeValues: Record<string, unknown> | undefined,
): PricedBasket {
  const items = [...basket.lines, ...chargeItemsFrom(chargeValues, basket.fulfillment)];
  return { basket, currency, items, totals: totalsOf(items, basket.discounts, currency) };
}
