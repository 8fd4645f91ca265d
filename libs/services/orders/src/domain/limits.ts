import { MAPPING_DETAILS_LIMITS, ORDER_CHARGE_LIMITS } from '@comanda/contracts';

/**
 * Sizes every input of the orders service is held to. A DTO and its column read the same
 * constant, so nothing a request may carry is ever cut off or refused by the database.
 * Changing a length that sizes a column takes a new migration as well.
 */
export const LIMITS = {
  /** Store, menu item, discount and merchant ids, and payment ids from events. */
  idLength: 100,
  /** Titles of menu and charge items (a charge's comes from the config store). */
  titleLength: ORDER_CHARGE_LIMITS.titleLength,
  currencyLength: 3,
  /** Keys and values of a mappingDetails object. */
  mappingKeyLength: MAPPING_DETAILS_LIMITS.keyLength,
  mappingValueLength: MAPPING_DETAILS_LIMITS.valueLength,
  mappingEntries: MAPPING_DETAILS_LIMITS.entries,
  menuItems: 1000,
  basketLines: 100,
  quantity: 99,
  discounts: 50,
  discountAmounts: 200,
  /** Guest fields. */
  guestNameLength: 200,
  emailLength: 320,
  phoneLength: 50,
  addressLength: 500,
  paymentMethodLength: 100,
  idempotencyKeyLength: 200,
  /** An integer price or discount in minor units. */
  maxMinorUnits: ORDER_CHARGE_LIMITS.maxMinorUnits,
  /** Placement report fields. */
  orderNameLength: 200,
  orderRefs: 50,
  orderRefLength: 500,
  receiptBytes: 256 * 1024,
  extensionsBytes: 64 * 1024,
  failureCodeLength: 200,
  failureMessageLength: 2000,
  failureDataBytes: 64 * 1024,
  /** Timeline entries of refused or repeated calls; more add to the count of the last one. */
  repeatedCallEntries: 20,
  pageSizeDefault: 20,
  pageSizeMax: 100,
} as const;
