import type { FastifyReply, FastifyRequest } from 'fastify';
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

/** The `Link` header of a list, for the API reference. */
export const NEXT_PAGE_LINK_HEADER = {
  Link: {
    description: 'On a full page: `<the next page>; rel="next"` (RFC 8288)',
    schema: { type: 'string' },
  },
};

/**
 * A full page may have a next one: its address goes in `Link` (RFC 8288, `rel="next"`), the
 * request's own with `created_at_offset` set to the creation time of the page's last row.
 * The minimal extension list has no `createdAt` in its items to page with; every list gets
 * the link alike.
 */
export function linkNextPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: PageRequest,
  items: number,
  lastCreatedAt: Date | string | undefined,
): void {
  if (items < page.limit || lastCreatedAt === undefined) return;
  const next = new URL(request.url, 'http://comanda.invalid');
  next.searchParams.set('created_at_offset', new Date(lastCreatedAt).toISOString());
  void reply.header('link', `<${next.pathname}${next.search}>; rel="next"`);
}
