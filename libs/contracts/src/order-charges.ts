/**
 * The tenant's charge items as a config of the config store (ADR 0024): entity
 * `order-charges`, `values.deliveryFee` and `values.serviceCharge`, each
 * `{title, amount, mappingDetails}`. The config store refuses a save that breaks this shape
 * (422), and the orders service reads it with the same rules, so a charge is never dropped
 * without the integrator who wrote it being told.
 */
export const ORDER_CHARGES_ENTITY = 'order-charges';

/** The members of the config's values that define a charge item; others are left alone. */
export const ORDER_CHARGE_KEYS = ['deliveryFee', 'serviceCharge'] as const;
export type OrderChargeKey = (typeof ORDER_CHARGE_KEYS)[number];

/** Custom key-value pairs of a store, menu item, charge item or discount, kept byte for byte. */
export type MappingDetails = Record<string, string>;

/** Sizes of a mappingDetails object, wherever one is accepted. */
export const MAPPING_DETAILS_LIMITS = { keyLength: 200, valueLength: 2000, entries: 100 } as const;

/** Sizes of a charge item's title and amount (minor units). */
export const ORDER_CHARGE_LIMITS = { titleLength: 200, maxMinorUnits: 100_000_000 } as const;

/** Why `value` is not a mappingDetails object, or undefined when it is one. */
export function mappingDetailsProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'must be an object of string keys to string values';
  }
  const entries = Object.entries(value);
  if (entries.length > MAPPING_DETAILS_LIMITS.entries) {
    return `must have at most ${MAPPING_DETAILS_LIMITS.entries} entries`;
  }
  for (const [key, entry] of entries) {
    if (key.length === 0 || key.length > MAPPING_DETAILS_LIMITS.keyLength) {
      return `keys must be 1 to ${MAPPING_DETAILS_LIMITS.keyLength} characters`;
    }
    if (typeof entry !== 'string') return `the value of "${key}" must be a string`;
    if (entry.length > MAPPING_DETAILS_LIMITS.valueLength) {
      return `the value of "${key}" must be at most ${MAPPING_DETAILS_LIMITS.valueLength} characters`;
    }
  }
  return undefined;
}

export interface OrderChargeDefinition {
  title: string;
  amount: number;
  mappingDetails: MappingDetails;
}

/** What is wrong with one charge entry, by the member at fault; empty when it is a charge. */
function chargeProblems(value: unknown): Array<{ member?: string; message: string }> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ message: 'must be an object {title, amount, mappingDetails}' }];
  }
  const { title, amount, mappingDetails } = value as Record<string, unknown>;
  const problems: Array<{ member?: string; message: string }> = [];
  if (
    typeof title !== 'string' ||
    title.length === 0 ||
    title.length > ORDER_CHARGE_LIMITS.titleLength
  ) {
    problems.push({
      member: 'title',
      message: `must be a string of 1 to ${ORDER_CHARGE_LIMITS.titleLength} characters`,
    });
  }
  if (
    typeof amount !== 'number' ||
    !Number.isInteger(amount) ||
    amount < 0 ||
    amount > ORDER_CHARGE_LIMITS.maxMinorUnits
  ) {
    problems.push({
      member: 'amount',
      message: `must be an integer of minor units from 0 to ${ORDER_CHARGE_LIMITS.maxMinorUnits}`,
    });
  }
  // Absent or null: a charge with no mapping details.
  const mappingProblem =
    mappingDetails === undefined || mappingDetails === null
      ? undefined
      : mappingDetailsProblem(mappingDetails);
  if (mappingProblem) problems.push({ member: 'mappingDetails', message: mappingProblem });
  return problems;
}

/**
 * Each way `values` of an `order-charges` config breaks the charge shape, with the path of
 * the member at fault (`values.deliveryFee.amount`). A charge that is absent or null is no
 * charge; members other than the charges are not looked at.
 */
export function orderChargesProblems(
  values: Record<string, unknown>,
): Array<{ path: string; message: string }> {
  return ORDER_CHARGE_KEYS.flatMap((key) => {
    const entry = values[key];
    if (entry === undefined || entry === null) return [];
    return chargeProblems(entry).map(({ member, message }) => ({
      path: member ? `values.${key}.${member}` : `values.${key}`,
      message,
    }));
  });
}

/** The charge `value` defines, or undefined when it defines none (absent, null, or malformed). */
export function orderChargeDefinition(value: unknown): OrderChargeDefinition | undefined {
  if (value === undefined || value === null || chargeProblems(value).length > 0) return undefined;
  const { title, amount, mappingDetails } = value as OrderChargeDefinition;
  return { title, amount, mappingDetails: mappingDetails ?? {} };
}
