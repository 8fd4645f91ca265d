import { RequestValidationError, type ProblemFieldError } from '@comanda/http';
import type { DeliveryQuery } from './delivery-log.usecase';
import type { DeliveryStatus } from './webhook-delivery.entity';

const STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed', 'paused'];
export const DELIVERY_PAGE_DEFAULT = 20;
export const DELIVERY_PAGE_MAX = 100;
const OFFSET_MAX = 10_000;
export function parseDeliveryQuery(raw: {
  status?: string;
  limit?: string;
  offset?: string;
}): DeliveryQuery {
  const errors: ProblemFieldError[] = [];
  const integer = (
    name: string,
    value: string | undefined,
    fallback: number,
    min: number,
    max: number,
  ) => {
    if (value === undefined) return fallback;
    const parsed = /^\d{1,6}$/.test(value) ? Number(value) : NaN;
    if (!(parsed >= min && parsed <= max)) {
      errors.push({ path: name, message: `must be an integer from ${min} to ${max}` });
      return fallback;
    }
    return parsed;
  };
  const limit = integer('limit', raw.limit, DELIVERY_PAGE_DEFAULT, 1, DELIVERY_PAGE_MAX);
  const offset = integer('offset', raw.offset, 0, 0, OFFSET_MAX);
  let status: DeliveryStatus | undefined;
  if (raw.status !== undefined) {
    if ((STATUSES as readonly string[]).includes(raw.status)) status = raw.status as DeliveryStatus;
    else errors.push({ path: 'status', message: `must be one of ${STATUSES.join(', ')}` });
  }
  if (errors.length > 0) throw new RequestValidationError(errors);
  return { status, limit, offset };
}
