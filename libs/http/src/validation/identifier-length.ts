/**
 * The longest identifier (tenant, client, extension, store, order id, ...) any service takes:
 * DTOs (`@MaxLength(MAX_IDENTIFIER_LENGTH)`), route parameters (Fastify's `maxParamLength`,
 * set from it for every service) and columns (`varchar(200)` or a CHECK) use this one number,
 * so an id that can be created can always be read back, and a longer one is a 400 or 404,
 * never a 500 from an index row too large.
 */
export const MAX_IDENTIFIER_LENGTH = 200;
