import { LIMITS } from './limits';
import { mappingDetailsProblem, type MappingDetails } from './mapping-details';
import type { Fulfillment, OrderItem } from './order';

/** The config entity whose values define a tenant's charge items. */
export const ORDER_CHARGES_ENTITY = 'order-charges';

/** Item types of charge items: their own, never a menu item's. */
export const CHARGE_ITEM_TYPES = {
  deliveryFee: 'deliveryFee',
  serviceCharge: 'serviceCharge',
} as const;

interface ChargeDefinition {
  title: string;
  amount: number;
  mappingDetails: MappingDetails;
}

function chargeDefinition(value: unknown): ChargeDefinition | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { title, amount, mappingDetails } = value as Record<string, unknown>;
  if (typeof title !== 'string' || title.length === 0 || title.length > LIMITS.titleLength) {
    return undefined;
  }
  if (!Number.isInteger(amount) || (amount as number) < 0) return undefined;
  if ((amount as number) > LIMITS.maxMinorUnits) return undefined;
  const details = mappingDetails ?? {};
  if (mappingDetailsProblem(details)) return undefined;
  return { title, amount: amount as number, mappingDetails: details as MappingDetails };
}

function chargeItem(key: keyof typeof CHARGE_ITEM_TYPES, definition: ChargeDefinition): OrderItem {
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
 * delivery fee for delivery orders only, the service charge always. An entry that is not
 * `{title, amount, mappingDetails}` is left out rather than charged wrongly.
 */
export function chargeItemsFrom(
  values: Record<string, unknown> | undefined,
  fulfillment: Fulfillment,
): OrderItem[] {
  if (!values) return [];
  const items: OrderItem[] = [];
  const deliveryFee = chargeDefinition(values['deliveryFee']);
  if (deliveryFee && fulfillment === 'delivery') items.push(chargeItem('deliveryFee', deliveryFee));
  const serviceCharge = chargeDefinition(values['serviceCharge']);
  if (serviceCharge) items.push(chargeItem('serviceCharge', serviceCharge));
  return items;
}
