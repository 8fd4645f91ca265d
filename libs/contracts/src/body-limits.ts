/**
 * Largest request body per service, in bytes: the service's own limit and the gateway's for
 * the paths that service owns are the same number, so an oversized body is the gateway's
 * 413 problem and never a 502 from an upstream that hung up mid-body.
 */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
export const AUTH_BODY_LIMIT_BYTES = 64 * 1024;
/** A partner event is a few hundred bytes; anything near this is not one. */
export const NOTIFICATIONS_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Every service whose limit is below DEFAULT_BODY_LIMIT_BYTES, by name: the gateway applies
 * it to the paths that service owns. A service that sets a smaller limit belongs here, or
 * the gateway forwards a body the service refuses mid-stream (a 502, not a 413).
 */
export const SMALLER_SERVICE_BODY_LIMITS: ReadonlyMap<string, number> = new Map([
  ['auth', AUTH_BODY_LIMIT_BYTES],
  ['notifications', NOTIFICATIONS_BODY_LIMIT_BYTES],
]);
