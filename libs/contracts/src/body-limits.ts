/**
 * Largest request body per service, in bytes: the service's own limit and the gateway's for
 * the paths that service owns are the same number, so an oversized body is the gateway's
 * 413 problem and never a 502 from an upstream that hung up mid-body.
 */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
export const AUTH_BODY_LIMIT_BYTES = 64 * 1024;
