import { orderChargeDefinition, type OrderChargeDefinition } from '@comanda/contracts';
import type { Fulfillment, OrderItem } from './order';

/** The config entity whose values define a tenant's charge items. */
export { ORDER_CHARGES_ENTITY } from '@comanda/contracts';

/** Item types of charge items: their own, never a menu item's. */
export const CHARGE_ITEM_TYPES = {
  deliveryFee: 'deliveryFee',
  serviceCharge: 'serviceCharge',
} as const;

function chargeItem(
  key: keyof typeof CHARGE_ITEM_TYPES,
  definition: OrderChargeDefinition,
): OrderItem {
  // Fixed ids: a discount on a charge names it the same way on the basket and the order.
  const id = key === 'deliveryFee' ? 'delivery-fee' : 'service-charge';
  return {
    id,
    type: CHARGE_ITEM_TYPES[key],
    title: definition.title,
    quantity: 1,
    unitPrice: definition.amount,
    units: [{ id: `${id}-1` }],
    mappingDetails: definition.mappingDetails,
  };
}

/**
 * The charge items of a basket from the tenant's `order-charges` config values: the
 * delivery fee for delivery orders only, the service charge always. The config store refuses
 * a save whose entries are not `{title, amount, mappingDetails}` (422); an entry saved
 * before it did is left out rather than charged wrongly.
 */
export function chargeItemsFrom(
  values: Record<string, unknown> | undefined,
  fulfillment: Fulfillment,
): OrderItem[] {
  if (!values) return [];
  const items: OrderItem[] = [];
  const deliveryFee = orderChargeDefinition(values['deliveryFee']);
  if (deliveryFee && fulfillment === 'delivery') items.push(chargeItem('deliveryFee', deliveryFee));
  const serviceCharge = orderChargeDefinition(values['serviceCharge']);
  if (serviceCharge) items.push(chargeItem('serviceCharge', serviceCharge));
  return items;
}
