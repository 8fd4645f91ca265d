/**
 * Business errors of the orders service: a stable code and a message, no HTTP status (the
 * HTTP layer maps codes to statuses in one table, `http/order-error-status.ts`).
 */
export class OrdersDomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class StoreNotFoundError extends OrdersDomainError {
  constructor(storeId: string) {
    super('store.not_found', `The tenant has no store "${storeId}".`);
  }
}

export class BasketCurrencyChangedError extends OrdersDomainError {
  constructor(basketCurrency: string, storeCurrency: string) {
    super(
      'basket.currency_changed',
      `The basket's prices are in ${basketCurrency}, but the store now sells in ${storeCurrency}: start a new basket.`,
    );
  }
}

export class MenuItemNotFoundError extends OrdersDomainError {
  constructor(menuItemId: string) {
    super('menu.item_not_found', `The store's menu has no item "${menuItemId}".`);
  }
}

export class MenuItemDuplicateError extends OrdersDomainError {
  constructor(menuItemId: string) {
    super('menu.duplicate_item', `The menu lists item "${menuItemId}" more than once.`);
  }
}

export class BasketNotFoundError extends OrdersDomainError {
  constructor(basketId: string) {
    super('basket.not_found', `The tenant has no basket "${basketId}".`);
  }
}

export class BasketCheckedOutError extends OrdersDomainError {
  constructor(basketId: string, orderId: string) {
    super(
      'basket.checked_out',
      `Basket "${basketId}" is already checked out as order "${orderId}"; it takes no more changes.`,
    );
  }
}

export class BasketEmptyError extends OrdersDomainError {
  constructor() {
    super('basket.empty', 'A basket needs at least one item to be checked out.');
  }
}

export class BasketFullError extends OrdersDomainError {
  constructor(what: string, limit: number) {
    super('basket.limit_reached', `A basket holds at most ${limit} ${what}.`);
  }
}

export class AddressRequiredError extends OrdersDomainError {
  constructor() {
    super('basket.address_required', 'A delivery basket needs the guest address.');
  }
}

export class DiscountTargetError extends OrdersDomainError {
  constructor(detail: string) {
    super('discount.invalid_target', detail);
  }
}

export class DiscountExistsError extends OrdersDomainError {
  constructor(discountId: string) {
    super('discount.already_applied', `Discount "${discountId}" is already on the basket.`);
  }
}

export class PaymentMerchantMismatchError extends OrdersDomainError {
  constructor(storeId: string) {
    super(
      'checkout.merchant_mismatch',
      `The payment's merchantId is not the payment merchant of store "${storeId}".`,
    );
  }
}

export class NothingToPayError extends OrdersDomainError {
  constructor(currency: string) {
    super(
      'checkout.nothing_to_pay',
      `The basket totals 0 ${currency} but asks for a payment: a payment needs a positive amount. Start a basket without a payment for a free order.`,
    );
  }
}

export class IdempotencyKeyReusedError extends OrdersDomainError {
  constructor() {
    super(
      'checkout.idempotency_key_reused',
      'This Idempotency-Key was already used to check out another basket.',
    );
  }
}

export class OrderNotFoundError extends OrdersDomainError {
  constructor(orderId: string) {
    super('order.not_found', `The tenant has no order "${orderId}".`);
  }
}

export class OrderNotReadyError extends OrdersDomainError {
  constructor(orderId: string, status: string) {
    super(
      'order.not_ready',
      `Order "${orderId}" is ${status}: only an order ready to be placed takes a placement session or a report.`,
    );
  }
}

export class OrderAlreadyFinalizedError extends OrdersDomainError {
  constructor(orderId: string, status: string) {
    super('order.already_finalized', `Order "${orderId}" is already finalized as ${status}.`);
  }
}

export class OrderRefTakenError extends OrdersDomainError {
  constructor(values: string[]) {
    super(
      'order.ref_taken',
      `orderRefsDict value${values.length === 1 ? '' : 's'} ${values
        .map((value) => JSON.stringify(value))
        .join(
          ', ',
        )} already belong${values.length === 1 ? 's' : ''} to another order of the tenant.`,
    );
  }
}

export class ReceiptNotFoundError extends OrdersDomainError {
  constructor(orderId: string) {
    super('order.receipt_not_found', `Order "${orderId}" has no receipt.`);
  }
}

export class ConfirmationEmailNotFoundError extends OrdersDomainError {
  constructor(orderId: string) {
    super(
      'order.confirmation_email_not_found',
      `Order "${orderId}" has no confirmation e-mail yet.`,
    );
  }
}
