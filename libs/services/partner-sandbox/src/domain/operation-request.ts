import { PAYMENT_OPERATION_TYPES, type Money, type PaymentOperationType } from '@comanda/contracts';
import { utf8Body, type ProblemFieldError } from '@comanda/http';

/** `{operationId, operationType, paymentId, orderId, merchantId, amount: {value, currency}, paymentMethod}` */
export interface OperationRequest {
  operationId: string;
  operationType: PaymentOperationType;
  paymentId: string;
  orderId: string;
  merchantId: string;
  amount: Money;
  paymentMethod: string;
}

const MAX_TEXT = 200;

export type ReadBody =
  { ok: true; body: Record<string, unknown> } | { ok: false; errors: ProblemFieldError[] };

/** Rule 7, first half: the body is a JSON object. */
export function readJsonObject(raw: Buffer): ReadBody | undefined {
  let value: unknown;
  try {
    value = JSON.parse(utf8Body(raw, 'json'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, errors: [{ path: '', message: 'the request must be a JSON object' }] };
  }
  return { ok: true, body: value as Record<string, unknown> };
}

/** Rule 7, second half: every required member is there with its type. */
export function validateOperation(
  body: Record<string, unknown>,
): { ok: true; operation: OperationRequest } | { ok: false; errors: ProblemFieldError[] } {
  const errors: ProblemFieldError[] = [];
  const text = (name: keyof OperationRequest): string => {
    const value = body[name];
    if (typeof value !== 'string' || value.trim() === '') {
      errors.push({ path: name, message: `${name} is required: a non-empty string` });
      return '';
    }
    if (value.length > MAX_TEXT) {
      errors.push({ path: name, message: `${name} has at most ${MAX_TEXT} characters` });
    }
    return value;
  };
  const operationId = text('operationId');
  const operationType = text('operationType');
  if (operationType && !(PAYMENT_OPERATION_TYPES as readonly string[]).includes(operationType)) {
    errors.push({
      path: 'operationType',
      message: `operationType must be one of ${PAYMENT_OPERATION_TYPES.join(', ')}`,
    });
  }
  const paymentId = text('paymentId');
  const orderId = text('orderId');
  const merchantId = text('merchantId');
  const paymentMethod = text('paymentMethod');
  const amount = body['amount'];
  let money: Money = { value: 0, currency: '' };
  if (typeof amount !== 'object' || amount === null || Array.isArray(amount)) {
    errors.push({ path: 'amount', message: 'amount is required: {value, currency}' });
  } else {
    const { value, currency } = amount as Record<string, unknown>;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      errors.push({
        path: 'amount.value',
        message: 'amount.value is required: minor units, an integer ≥ 0',
      });
    }
    if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency)) {
      errors.push({
        path: 'amount.currency',
        message: 'amount.currency is required: an ISO 4217 code',
      });
    }
    money = { value: value as number, currency: currency as string };
  }
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    operation: {
      operationId,
      operationType: operationType as PaymentOperationType,
      paymentId,
      orderId,
      merchantId,
      amount: money,
      paymentMethod,
    },
  };
}

/** What makes two requests "the same operation" for Idempotency-Key replays. */
export function fingerprintOf(operation: OperationRequest): string {
  return JSON.stringify([
    operation.operationType,
    operation.paymentId,
    operation.orderId,
    operation.merchantId,
    operation.amount.value,
    operation.amount.currency,
    operation.paymentMethod,
  ]);
}
