import { lookupTable } from '@comanda/http';
import { LIMITS } from './limits';
import type { MappingDetails } from './mapping-details';
import { OrderAlreadyFinalizedError, OrderNotReadyError } from './order.errors';

/**
 * Where an order is in its life. `ready` is the spec's "closed" (announced to POS, no
 * session yet), `placing` a closed order whose placement session has started; `placed` and
 * `failed` are the spec's "finalized".
 */
export type OrderStatus = 'awaiting_payment' | 'ready' | 'placing' | 'placed' | 'failed';

export const ORDER_STATUSES: readonly OrderStatus[] = [
  'awaiting_payment',
  'ready',
  'placing',
  'placed',
  'failed',
];

export type OrderTrigger =
  | 'payment_authorized'
  | 'payment_failed'
  | 'session_started'
  | 'pos_placed'
  | 'pos_failed'
  | 'placement_timeout'
  | 'pickup_timeout';

/**
 * Every allowed move, and nothing else: the spec's "Order placement" table plus the payment
 * leg of the saga. A trigger missing from a state's row is refused by `transition`.
 */
export const ORDER_TRANSITIONS: Readonly<
  Record<OrderStatus, Partial<Record<OrderTrigger, OrderStatus>>>
> = lookupTable({
  awaiting_payment: { payment_authorized: 'ready', payment_failed: 'failed' },
  // A payment that ends before the order is placed (its reservation expired) fails it too.
  ready: {
    session_started: 'placing',
    pos_placed: 'placed',
    pos_failed: 'failed',
    pickup_timeout: 'failed',
    payment_failed: 'failed',
  },
  placing: {
    session_started: 'placing',
    pos_placed: 'placed',
    pos_failed: 'failed',
    placement_timeout: 'failed',
    payment_failed: 'failed',
  },
  placed: {},
  failed: {},
});

export function isFinalized(status: OrderStatus): boolean {
  return status === 'placed' || status === 'failed';
}

/** The next status, or undefined when `trigger` makes no sense in `status`. */
export function nextStatus(status: OrderStatus, trigger: OrderTrigger): OrderStatus | undefined {
  return ORDER_TRANSITIONS[status][trigger];
}

/**
 * The next status of a move a client asked for; refuses it with the error the client sees
 * (405 for a callback on a finalized order, 409 for a session on an order not ready).
 */
export function transition(
  orderId: string,
  status: OrderStatus,
  trigger: OrderTrigger,
): OrderStatus {
  const next = nextStatus(status, trigger);
  if (next) return next;
  if (isFinalized(status) && (trigger === 'pos_placed' || trigger === 'pos_failed')) {
    throw new OrderAlreadyFinalizedError(orderId, status);
  }
  throw new OrderNotReadyError(orderId, status);
}

export interface Unit {
  id: string;
}

/** A menu item or charge item as the order (and the basket) holds it. */
export interface OrderItem {
  id: string;
  type: string;
  /** The menu item it came from; absent on charge items. */
  menuItemId?: string;
  title: string;
  quantity: number;
  unitPrice: number;
  units: Unit[];
  mappingDetails: MappingDetails;
}

export interface DiscountAmount {
  itemId: string;
  unitId: string;
  value: number;
}

export interface Discount {
  id: string;
  title: string;
  mappingDetails: MappingDetails;
  amounts: DiscountAmount[];
}

export interface Totals {
  currency: string;
  /** Menu items. */
  items: number;
  charges: number;
  discounts: number;
  total: number;
}

export type Address =
  string | { street: string; city: string; postalCode: string; country: string };

export interface Guest {
  name: string;
  email: string;
  phone: string;
  address?: Address;
}

export type Fulfillment = 'pickup' | 'delivery';

export interface StoreDetails {
  id: string;
  name: string;
  currency: string;
  mappingDetails: MappingDetails;
}

export interface PaymentRequest {
  merchantId: string;
  paymentMethod: string;
}

export interface OrderPayment {
  paymentId: string;
  status: string;
  amount: { value: number; currency: string };
  reason?: string;
  /** Captures requested of the partner so far: more than one means earlier ones failed. */
  captureAttempts?: number;
  updatedAt: string;
}

export interface PlacementReport {
  orderName: string;
  datePlaced: string;
  estimatedReadyTime: string;
  cancelableUntil?: string;
  orderRefsDict?: Record<string, string>;
  extensions?: Record<string, unknown>;
}

/** Session fields are null when a POS reported without starting a session (allowed by the spec). */
export interface Placement {
  sessionId: string | null;
  startedAt: string | null;
  expiresAt: string | null;
  report?: PlacementReport;
  placedAt?: string;
}

export interface Failure {
  code: string;
  message: string;
  data?: Record<string, unknown>;
  at: string;
}

/** One line of the order's history: every transition, callback and payment event. */
export interface TimelineEntry {
  at: string;
  type: string;
  status: OrderStatus;
  detail?: Record<string, unknown>;
}

/** Menu items, then charge items: the sums the guest pays, in minor units. */
export function totalsOf(items: OrderItem[], discounts: Discount[], currency: string): Totals {
  const sum = (list: OrderItem[]) =>
    list.reduce((total, item) => total + item.quantity * item.unitPrice, 0);
  const menu = items.filter((item) => item.menuItemId !== undefined);
  const charges = items.filter((item) => item.menuItemId === undefined);
  const discounted = discounts.reduce(
    (total, discount) =>
      total + discount.amounts.reduce((subtotal, amount) => subtotal + amount.value, 0),
    0,
  );
  const gross = sum(menu) + sum(charges);
  return {
    currency,
    items: sum(menu),
    charges: sum(charges),
    discounts: Math.min(discounted, gross),
    total: Math.max(gross - discounted, 0),
  };
}

/** What the transition functions need of an order, whatever holds it. */
export interface OrderLifecycle {
  id: string;
  status: OrderStatus;
  timeline: TimelineEntry[];
  finalizedAt: Date | null;
  updatedAt: Date;
}

/** Appends a timeline entry without changing the status (a payment event, a refused callback). */
export function record(
  order: OrderLifecycle,
  type: string,
  now: Date,
  detail?: Record<string, unknown>,
): void {
  order.timeline = [
    ...order.timeline,
    { at: now.toISOString(), type, status: order.status, ...(detail ? { detail } : {}) },
  ];
  order.updatedAt = now;
}

/**
 * Records a call that changed nothing (a refused callback, a repeated session start) without
 * letting a client that retries grow the order: the same call right after itself adds to a
 * count on its entry (`repeats`, `lastAt`), and past `LIMITS.repeatedCallEntries` such
 * entries every one does. `detail` is a summary, never a whole request body.
 */
export function recordRepeated(
  order: OrderLifecycle,
  type: string,
  now: Date,
  detail: Record<string, unknown>,
): void {
  const entries = order.timeline.filter((entry) => entry.type === type);
  const last = order.timeline.at(-1);
  const again =
    last?.type === type && JSON.stringify(withoutCount(last.detail)) === JSON.stringify(detail);
  const into = again
    ? last
    : entries.length >= LIMITS.repeatedCallEntries
      ? entries.at(-1)
      : undefined;
  if (!into) {
    record(order, type, now, detail);
    return;
  }
  const repeats = typeof into.detail?.repeats === 'number' ? into.detail.repeats : 1;
  order.timeline = order.timeline.map((entry) =>
    entry === into
      ? { ...entry, detail: { ...entry.detail, repeats: repeats + 1, lastAt: now.toISOString() } }
      : entry,
  );
  order.updatedAt = now;
}

function withoutCount(detail: Record<string, unknown> | undefined): Record<string, unknown> {
  const rest = { ...detail };
  delete rest.repeats;
  delete rest.lastAt;
  return rest;
}

/** Moves the order by `trigger` (or throws, see `transition`) and writes it to the timeline. */
export function move(
  order: OrderLifecycle,
  trigger: OrderTrigger,
  now: Date,
  detail?: Record<string, unknown>,
): OrderStatus {
  const next = transition(order.id, order.status, trigger);
  order.status = next;
  if (isFinalized(next)) order.finalizedAt = now;
  record(order, trigger, now, detail);
  return next;
}
