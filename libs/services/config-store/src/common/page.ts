import { parseBoundedInt, parseTimestampParam } from './query-params';

export const PAGE_SIZE_DEFAULT = 20;
export const PAGE_SIZE_MAX = 100;

/**
 * Keyset page over rows ordered by (created_at, id): the next page starts strictly after
 * `createdAfter`. Creation times are distinct within a list's scope (see CreatedAtAllocator),
 * so a timestamp alone is a cursor that never repeats nor skips a row.
 */
export interface PageRequest {
  createdAfter?: Date;
  limit: number;
}

export function parsePageRequest(query: {
  created_at_offset?: string;
  limit?: string;
}): PageRequest {
  return {
    createdAfter: parseTimestampParam('created_at_offset', query.created_at_offset),
    limit: parseBoundedInt('limit', query.limit, {
      fallback: PAGE_SIZE_DEFAULT,
      min: 1,
      max: PAGE_SIZE_MAX,
    }),
  };
}
