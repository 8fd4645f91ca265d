/**
 * Sizes every input of the orders service is held to. A DTO and its column read the same
 * constant, so nothing a request may carry is ever cut off or refused by the database.
 * Changing a length that sizes a column takes a new migration as well.
 */
export const LIMITS = {
  /** Store, menu item, discount and merchant ids, and payment ids from events. */
  idLength: 100,
  titleLength: 200,
  currencyLength: 3,
  /** Keys and values of a mappingDetails object. */
  mappingKeyLength: 200,
  mappingValueLength: 2000,
  mappingEntries: 100,
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
  maxMinorUnits: 100_000_000,
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
